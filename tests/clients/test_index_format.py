"""An index of an older key layout (format 2) beside a database whose log a format-2 build wrote:
the current build reads the old log rows, rebuilds the index in its own layout, and answers every
query as the old build did. The fixture and the old build's answers: fixtures/README.md.

Indexes of formats 4 and 5 are made from this build's own index with raw LMDB, undoing what each
later format changed: format 6 ended each record's data with a check byte (format 5 has none:
read as this build's, every record would look damaged), format 5 keyed ident names by their
length first (format 4 did not: no name would be found)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import EXT, rows_in_child
from raw_lmdb import RawIndex

CURRENT = 7  # the index format this build writes (DATALOG_FORMAT_VERSION)
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def answers(db):
    out = subprocess.run([sys.executable, os.path.join(FIXTURES, "v2_answers.py"), EXT, str(db)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def stats(db):
    return json.loads(rows_in_child(db, "SELECT datalog_stats('g')")[0][0])


@pytest.fixture
def expected():
    with open(os.path.join(FIXTURES, "v2-expected.json")) as f:
        return json.load(f)


def test_a_format_2_index_is_rebuilt_in_the_current_layout(tmp_path, expected):
    shutil.copy(os.path.join(FIXTURES, "v2.db"), tmp_path / "v2.db")
    shutil.copy(os.path.join(FIXTURES, "v2.mdb"), tmp_path / "v2.db-g.graph")
    assert answers(tmp_path / "v2.db") == expected
    s = stats(tmp_path / "v2.db")
    assert (s["index_format"], s["log_rows"], s["indexed_rows"]) == (CURRENT, 11, 11)


def test_the_format_2_log_alone_gives_the_same_answers(tmp_path, expected):
    shutil.copy(os.path.join(FIXTURES, "v2.db"), tmp_path / "v2.db")
    assert answers(tmp_path / "v2.db") == expected
    assert stats(tmp_path / "v2.db")["index_format"] == CURRENT


# --- formats 4 and 5, made from this build's index ---------------------------------------------

CHECKED_TABLES = [b"eavt", b"aevt", b"avet", b"vaet", b"ident_names", b"ident_ids", b"txlog", b"giants"]


def _as_older_format(graph_path, version):
    """Rewrites this build's index in place into what a build of format `version` (4 or 5) wrote:
    no check byte at the end of any record's data, for 4 also each ident name's key without its
    leading length byte, and the meta format. Returns the ident names moved."""
    index = RawIndex(graph_path)
    for table in CHECKED_TABLES:
        index.replace(table, [(key, data[:-1]) for key, data in index.entries(table)])
    names = 0
    if version == 4:
        entries = index.entries(b"ident_names")
        assert entries, "the index holds no ident names"
        for key, _ in entries:
            # The length byte of the whole name, whose last two bytes are in the data (format 7).
            assert key[0] == min(len(key) + 1, 255), key
        index.replace(b"ident_names", [(key[1:], data) for key, data in entries])
        names = len(entries)
    index.put(b"meta", b"format", bytes([0, 0, 0, version]))
    index.commit()
    return names


def _make_graph(db):
    subprocess.run([sys.executable, "-c",
                    "import sqlite3, sys\n"
                    "c = sqlite3.connect(sys.argv[2], isolation_level=None); c.enable_load_extension(True)\n"
                    "c.load_extension(sys.argv[1])\n"
                    "c.execute('CREATE VIRTUAL TABLE g USING datalog')\n"
                    "c.execute(\"SELECT datalog_exec('g', '(transact [[:alice :name \\\"Alice\\\"] "
                    "[:bob :name \\\"Bob\\\"] [:e9 :n 9] [:e10 :n 10] [:e100 :n 100] "
                    "[:alice :friend :bob]])')\").fetchall()\n",
                    EXT, str(db)], check=True)


QUERIES = {
    "(query [:find ?n :where [:alice :name ?n]])": [["Alice"]],
    "(query [:find ?n :where [:alice :friend ?f] [?f :name ?n]])": [["Bob"]],
    "(query [:find ?v :where [:e10 :n ?v]])": [[10]],
    "(query [:find ?v :where [:e100 :n ?v]])": [[100]],
}


def test_a_format_4_index_is_rebuilt_with_the_names_keyed_by_length(tmp_path):
    db = tmp_path / "v4.db"
    _make_graph(db)
    for q, rows in QUERIES.items():
        assert [list(r[:1]) for r in rows_in_child(db, f"SELECT * FROM datalog_q('g', '{q}')")] == rows
    # The same index as a format-4 build left it: found by its old keys, not by this build's.
    assert _as_older_format(tmp_path / "v4.db-g.graph", 4) >= 8
    assert stats(db)["index_format"] == CURRENT  # rebuilt from the log on first use
    for q, rows in QUERIES.items():
        assert [list(r[:1]) for r in rows_in_child(db, f"SELECT * FROM datalog_q('g', '{q}')")] == rows


def test_a_format_5_index_is_rebuilt_with_check_bytes(tmp_path):
    db = tmp_path / "v5.db"
    _make_graph(db)
    # Records without check bytes: a format-5 index is rebuilt, not read as damaged (a query on a
    # damaged index fails once with SQLITE_CORRUPT, which rows_in_child would fail on).
    _as_older_format(tmp_path / "v5.db-g.graph", 5)
    for q, rows in QUERIES.items():
        assert [list(r[:1]) for r in rows_in_child(db, f"SELECT * FROM datalog_q('g', '{q}')")] == rows
    assert stats(db)["index_format"] == CURRENT
