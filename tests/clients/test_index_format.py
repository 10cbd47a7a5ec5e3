"""An index of an older key layout (format 2) beside a database whose log a format-2 build wrote:
the current build reads the old log rows, rebuilds the index in its own layout, and answers every
query as the old build did. The fixture and the old build's answers: fixtures/README.md."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import EXT

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def answers(db):
    out = subprocess.run([sys.executable, os.path.join(FIXTURES, "v2_answers.py"), EXT, str(db)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def stats(db):
    out = subprocess.run([sys.executable, "-c",
                          "import sqlite3, sys\n"
                          "c = sqlite3.connect(sys.argv[2]); c.enable_load_extension(True)\n"
                          "c.load_extension(sys.argv[1])\n"
                          "print(c.execute(\"SELECT datalog_stats('g')\").fetchone()[0])",
                          EXT, str(db)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.fixture
def expected():
    with open(os.path.join(FIXTURES, "v2-expected.json")) as f:
        return json.load(f)


def test_a_format_2_index_is_rebuilt_in_the_current_layout(tmp_path, expected):
    shutil.copy(os.path.join(FIXTURES, "v2.db"), tmp_path / "v2.db")
    shutil.copy(os.path.join(FIXTURES, "v2.mdb"), tmp_path / "v2.db-g.graph")
    assert answers(tmp_path / "v2.db") == expected
    s = stats(tmp_path / "v2.db")
    assert (s["index_format"], s["log_rows"], s["indexed_rows"]) == (5, 11, 11)


def test_the_format_2_log_alone_gives_the_same_answers(tmp_path, expected):
    shutil.copy(os.path.join(FIXTURES, "v2.db"), tmp_path / "v2.db")
    assert answers(tmp_path / "v2.db") == expected
    assert stats(tmp_path / "v2.db")["index_format"] == 5
