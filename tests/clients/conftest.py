"""Fixtures for the client tests: Python's sqlite3 (Debian's /usr/bin/python3) against the
built extension.

DATALOG_EXT names the extension to load (with or without the .so suffix: sqlite3_load_extension
tries both); the default is the build/ folder of the repository this file lives in.
"""
import ast
import os
import pathlib
import re
import sqlite3
import subprocess
import sys
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXT = os.environ.get("DATALOG_EXT", str(REPO / "build" / "datalog"))

if not hasattr(sqlite3.Connection, "enable_load_extension"):
    pytest.exit(
        "this Python's sqlite3 cannot load extensions; run the suite with /usr/bin/python3",
        returncode=2,
    )


# What datalog_check says while the index holds part of a transaction that never committed (a
# large transaction commits the index in parts; docs/STORAGE.md).
UNFINISHED = "the index holds part of a transaction that has not committed"


def known_bug(reason):
    """Marks a test of behaviour the extension gets wrong today (reported, not yet fixed). strict:
    once the extension is fixed the test passes, the run fails, and the mark must go."""
    return pytest.mark.xfail(strict=True, reason=reason)


def load(conn):
    """Loads the extension into conn with no explicit entry point."""
    conn.enable_load_extension(True)
    conn.load_extension(EXT)
    conn.enable_load_extension(False)
    return conn


def connect(path, **kwargs):
    """An autocommit connection (isolation_level=None: BEGIN only when the test says so) with
    the extension loaded."""
    kwargs.setdefault("isolation_level", None)
    conn = sqlite3.connect(str(path), **kwargs)
    return load(conn)


def rows(conn, sql, params=()):
    return conn.execute(sql, params).fetchall()


def raises_datalog(message, exc=sqlite3.Error):
    """pytest.raises for an SQLite error whose text contains 'datalog: ' ... message."""
    return pytest.raises(exc, match=re.escape(message))


def attempts_in_child(db, sql, attempts=2, until_rows=False, timeout=60):
    """sql run up to `attempts` times by a fresh process on database db, which sees the index as
    a new process would (a statement that finds damage fails; the next rebuilds). Stops at the
    first attempt that answers when until_rows. The finished process: its output has one line per
    attempt, the repr of the rows or of (error name, message); outcomes() reads them."""
    script = textwrap.dedent(f"""
        import sqlite3
        conn = sqlite3.connect({str(db)!r}, isolation_level=None)
        conn.enable_load_extension(True)
        conn.load_extension({EXT!r})
        for attempt in range({attempts}):
            try:
                print(repr(conn.execute({sql!r}).fetchall()))
                if {until_rows}:
                    break
            except sqlite3.Error as e:
                print(repr((e.sqlite_errorname, str(e))))
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout)


def outcomes(process):
    """Each attempt of attempts_in_child: its rows, or (error name, message)."""
    return [ast.literal_eval(line) for line in process.stdout.splitlines()]


def rows_in_child(db, sql):
    """The rows of sql, run once by a fresh process; its error fails the caller."""
    out = attempts_in_child(db, sql, attempts=1)
    assert out.returncode == 0, out.stderr
    [answer] = outcomes(out)
    assert isinstance(answer, list), answer
    return answer


@pytest.fixture
def ext_path():
    return EXT


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "app.db"


@pytest.fixture
def db(db_path):
    """A file database app.db in a fresh folder, extension loaded, table g on app.graph."""
    conn = connect(db_path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    yield conn
    conn.close()
