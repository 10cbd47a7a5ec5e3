"""A full disk: the write fails with SQLITE_FULL saying so, and the graph stays as it was.

The index commits after SQLite's commit, where a failure could no longer fail the transaction, so
a transaction whose index pages may not fit fails before SQLite commits. The disk is a 3 MiB
tmpfs mounted for the test (root only; skipped where mounting is not allowed)."""
import os
import subprocess
import sqlite3

import pytest

from conftest import connect, raises_datalog, rows


@pytest.fixture
def tiny_disk(tmp_path):
    mount_point = tmp_path / "tiny"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount_point)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here: " + mounted.stderr.decode(errors="replace"))
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(conn, write):
    """Runs write(k) for k = 0, 1, ... until it fails; returns the error."""
    for k in range(100):
        try:
            write(k)
        except sqlite3.Error as e:
            return e
    raise AssertionError("the disk never filled")


def test_disk_full_in_datalog_exec_is_sqlite_full_and_leaves_the_graph_intact(tiny_disk):
    conn = connect(tiny_disk / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_exec('g', '(transact [[:first :n 1]])')")
    committed = []

    def write(k):
        facts = " ".join(f'[{k * 10000 + i} :n "{"x" * 50}{i}"]' for i in range(1, 10001))
        conn.execute("SELECT datalog_exec('g', ?)", (f"(transact [{facts}])",))
        committed.append(k)

    error = fill(conn, write)
    assert error.sqlite_errorname == "SQLITE_FULL"
    assert str(error).startswith(f"datalog: disk full: the index '{tiny_disk / 'app.db-g.graph'}' "
                                 "may need up to ")
    assert str(error).endswith("free; the transaction was rolled back and the graph is as it was")
    assert rows(conn, "SELECT count(*) FROM g") == [(1 + 10000 * len(committed),)]
    assert rows(conn, "SELECT v FROM g WHERE e = ':first'") == [(1,)]


def test_disk_full_in_insert_is_sqlite_full(tiny_disk):
    conn = connect(tiny_disk / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    insert = """WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
                INSERT INTO g(e, a, v) SELECT {k} * 10000 + i, ':n', printf('%.60c', 'y') FROM n"""
    error = fill(conn, lambda k: conn.execute(insert.format(k=k)))
    assert error.sqlite_errorname == "SQLITE_FULL"
    assert "disk full" in str(error)
    count = rows(conn, "SELECT count(*) FROM g")[0][0]
    assert count % 10000 == 0  # whole statements only
