"""Several processes on one graph. A graph belongs to one database, so every process opens the
same database file (app.db) and its table w: the log in w_log, committed by SQLite, and the index
app.db-w.graph (LMDB), derived from the log. SQLite's write lock serialises writers across
processes; readers are not blocked and see only committed facts; a writer killed (SIGKILL) at any
moment leaves every acknowledged commit and nothing partial, and the index catches up from the
log. Each test runs in both of SQLite's journal modes, rollback (delete) and WAL."""
import json
import os
import pathlib
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import EXT, connect, rows

CHILD = pathlib.Path(__file__).with_name("graph_child.py")
PYTHON = sys.executable  # the Python running the tests can load extensions (conftest checks)
JOURNALS = ["delete", "wal"]


def child(mode, folder, busy_timeout=5000):
    return subprocess.Popen(
        [PYTHON, str(CHILD), mode, EXT, str(folder / "app.db"), str(busy_timeout)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_child(mode, folder, busy_timeout=5000):
    out = subprocess.run(
        [PYTHON, str(CHILD), mode, EXT, str(folder / "app.db"), str(busy_timeout)],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def expect_line(proc, wanted, timeout=60):
    line = proc.stdout.readline().strip()
    assert line == wanted, (line, proc.stderr.read() if proc.poll() is not None else "")
    return line


@pytest.fixture(params=JOURNALS)
def parent(request, tmp_path):
    """This process's connection to app.db (SQLite busy timeout 100 ms) with table w."""
    conn = connect(tmp_path / "app.db", timeout=0.1)
    assert rows(conn, f"PRAGMA journal_mode={request.param}") == [(request.param,)]
    conn.execute("CREATE VIRTUAL TABLE w USING datalog")
    yield conn
    conn.close()


def values(conn):
    return [v for (v,) in rows(conn, "SELECT v FROM w WHERE a = ':n' ORDER BY v")]


def test_writer_in_another_process_blocks_this_writer(parent, tmp_path):
    parent.execute("INSERT INTO w(e, a, v) VALUES (':parent', ':n', 0)")
    proc = child("hold", tmp_path)
    try:
        expect_line(proc, "holding")
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError) as caught:
            parent.execute("INSERT INTO w(e, a, v) VALUES (':parent', ':n', 3)")
        # SQLite's own write lock, after SQLite's busy timeout (100 ms)
        assert str(caught.value) == "database is locked"
        assert caught.value.sqlite_errorname == "SQLITE_BUSY"
        assert 0.09 <= time.monotonic() - started < 3
        assert not parent.in_transaction
        # Reading is not blocked, and sees no dirty data: with a 10 s busy timeout, a read that
        # waited for the writer would take 10 s.
        parent.execute("PRAGMA busy_timeout = 10000")
        started = time.monotonic()
        assert values(parent) == [0]
        assert time.monotonic() - started < 5
        parent.execute("PRAGMA busy_timeout = 100")
        proc.stdin.write("commit\n")
        proc.stdin.flush()
        expect_line(proc, "done")
    finally:
        proc.kill()
        proc.wait()
    assert values(parent) == [0, 1]
    parent.execute("INSERT INTO w(e, a, v) VALUES (':parent', ':n', 3)")
    assert rows(parent, "SELECT v, tx FROM w WHERE a = ':n' ORDER BY v") == [
        (0, 1), (1, 2), (3, 3)]


def test_this_writer_blocks_a_writer_in_another_process(parent, tmp_path):
    parent.execute("BEGIN")
    parent.execute("INSERT INTO w(e, a, v) VALUES (':parent', ':n', 1)")
    started = time.monotonic()
    assert run_child("write", tmp_path, busy_timeout=100) == [
        "error SQLITE_BUSY database is locked"]
    assert time.monotonic() - started < 30
    assert run_child("read", tmp_path) == ["values "]  # uncommitted: not visible elsewhere
    parent.execute("COMMIT")
    assert run_child("read", tmp_path) == ["values 1"]
    assert run_child("write", tmp_path, busy_timeout=100) == ["ok"]
    assert rows(parent, "SELECT e, v, tx FROM w WHERE a = ':n' ORDER BY v") == [
        (":parent", 1, 1), (":child", 2, 2)]


def test_rolled_back_transaction_of_another_process(parent, tmp_path):
    proc = child("hold", tmp_path)
    try:
        expect_line(proc, "holding")
        proc.stdin.write("rollback\n")
        proc.stdin.flush()
        expect_line(proc, "done")
    finally:
        proc.kill()
        proc.wait()
    assert values(parent) == []
    parent.execute("INSERT INTO w(e, a, v) VALUES (':parent', ':n', 5)")
    assert rows(parent, "SELECT v, tx FROM w WHERE a = ':n'") == [(5, 1)]
    assert run_child("read", tmp_path) == ["values 5"]


def test_writer_killed_while_holding_the_lock(parent, tmp_path):
    parent.execute("INSERT INTO w(e, a, v) VALUES (':parent', ':n', 0)")
    proc = child("hold", tmp_path)
    try:
        expect_line(proc, "holding")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # the lock died with the process: writing works at once, and the dead writer left nothing
    parent.execute("INSERT INTO w(e, a, v) VALUES (':parent', ':n', 3)")
    assert rows(parent, "SELECT v, tx FROM w WHERE a = ':n' ORDER BY v") == [(0, 1), (3, 2)]
    assert run_child("read", tmp_path) == ["values 0,3"]


def _check_graph(conn, where, expected_count):
    """The same facts through every index."""
    assert rows(conn, f"SELECT count(*) FROM w WHERE {where}") == [(expected_count,)]


def test_crash_in_the_middle_of_a_large_transaction(parent, tmp_path):
    parent.execute("BEGIN")
    parent.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
                      INSERT INTO w(e, a, v) SELECT i, ':n', i FROM n""")
    parent.execute("COMMIT")
    parent.execute("INSERT INTO w(e, a, v, vtype) VALUES (':keep', ':friend', ':other', 'ref')")
    index = tmp_path / "app.db-w.graph"
    before = os.path.getsize(index)
    proc = child("bulk", tmp_path)
    try:
        expect_line(proc, "inserting")
        time.sleep(0.3)
        assert proc.poll() is None, "the child finished before it could be killed"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert os.path.getsize(index) >= before

    for conn in (parent, None):
        if conn is None:  # and from a process that opens the graph afresh
            lines = run_child("read", tmp_path)
            assert lines == ["values " + ",".join(str(i) for i in range(1, 1001))]
            continue
        _check_graph(conn, "a = ':n'", 1000)
        _check_graph(conn, "a = ':n' AND v >= 1", 1000)
        _check_graph(conn, "1", 1001)
        _check_graph(conn, "e = ':bulk'", 0)
        _check_graph(conn, "a = ':bulk'", 0)
        _check_graph(conn, "v = ':other' AND vtype = 'ref'", 1)
        _check_graph(conn, "valid_at = 'any' AND as_of = 99", 1001)
        assert rows(conn, "SELECT v FROM w WHERE e = 500 AND a = ':n'") == [(500,)]
    # the next transaction continues the counter of the committed ones
    parent.execute("INSERT INTO w(e, a, v) VALUES (':after', ':n', 0)")
    assert rows(parent, "SELECT tx FROM w WHERE e = ':after'") == [(3,)]


def _many_counts(conn):
    return rows(conn, "SELECT e, count(*), min(v), max(v), min(tx), max(tx) FROM w "
                      "WHERE a = ':many' GROUP BY e ORDER BY e")


def test_killed_between_small_transactions_each_is_all_or_nothing(parent, tmp_path):
    proc = child("many", tmp_path)
    try:
        for n in range(1, 6):
            expect_line(proc, f"tx {n}")
        time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    later = proc.stdout.read().splitlines()  # the 'tx <n>' lines printed before the kill
    assert later == [f"tx {n}" for n in range(6, 6 + len(later))]
    acknowledged = 5 + len(later)
    counts = _many_counts(parent)
    # Every acknowledged commit is there, whole; at most one more committed before its line was
    # printed; none partial. The index caught up from the log for whatever the kill left behind.
    assert acknowledged <= len(counts) <= acknowledged + 1, (acknowledged, len(counts))
    assert counts == [(n, 10, 0, 9, n, n) for n in range(1, len(counts) + 1)]
    _check_graph(parent, "a = ':many' AND v = 9", len(counts))
    _check_graph(parent, "valid_at = 'any' AND as_of = 1000000000", 10 * len(counts))
    # and the same from a process that opens the graph afresh
    script = textwrap.dedent(f"""
        import sqlite3
        conn = sqlite3.connect({str(tmp_path / 'app.db')!r}, isolation_level=None)
        conn.enable_load_extension(True)
        conn.load_extension({EXT!r})
        print(conn.execute("SELECT e, count(*), min(v), max(v), min(tx), max(tx) FROM w "
                           "WHERE a = ':many' GROUP BY e ORDER BY e").fetchall())
    """)
    out = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(counts)
    parent.execute("INSERT INTO w(e, a, v) VALUES (':after', ':n', 0)")
    assert _many_counts(parent) == counts
    assert rows(parent, "SELECT tx FROM w WHERE e = ':after'") == [(len(counts) + 1,)]


_FORK_SCRIPT = """
import os, sqlite3, sys
extension, database, journal = sys.argv[1], sys.argv[2], sys.argv[3]
def connect():
    conn = sqlite3.connect(database, isolation_level=None, timeout=2)
    conn.enable_load_extension(True)
    conn.load_extension(extension)
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS w USING datalog")
    return conn
parent = connect()
parent.execute("PRAGMA journal_mode=" + journal)
parent.execute("INSERT INTO w(e, a, v) VALUES (':parent', ':n', 1)")
reading = parent.execute("SELECT v FROM w")  # the index is open in this process at the fork
reading.fetchone()
pid = os.fork()
if pid == 0:  # the child opens the graph again: an environment must not cross fork()
    try:
        child = connect()
        print("child sees", child.execute("SELECT v FROM w ORDER BY v").fetchall(), flush=True)
        child.execute("INSERT INTO w(e, a, v) VALUES (':child', ':n', 2)")
        print("child wrote", flush=True)
    except Exception as e:
        print("child error", e, flush=True)
    os._exit(0)
os.waitpid(pid, 0)
reading.fetchall()
parent.execute("INSERT INTO w(e, a, v) VALUES (':parent', ':n', 3)")
print("parent sees", parent.execute("SELECT v, tx FROM w ORDER BY v").fetchall(), flush=True)
"""


@pytest.mark.parametrize("journal", JOURNALS)
def test_forked_child_opens_the_graph_afresh(tmp_path, journal):
    script = tmp_path / "fork.py"
    script.write_text(_FORK_SCRIPT)
    out = subprocess.run([PYTHON, str(script), EXT, str(tmp_path / "app.db"), journal],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "child sees [(1,)]",
        "child wrote",
        "parent sees [(1, 1), (2, 2), (3, 3)]",
    ]


def test_an_idle_process_does_not_keep_its_last_snapshot(tmp_path):
    """A process keeps the read snapshot of its last statement for the next one while nothing
    newer is committed (docs/STORAGE.md, "Parked snapshots"), but not once it sits idle: its
    watchdog resets it within about half a second, so another process's writes can reuse the
    pages they free, and datalog_stats then counts no reader."""
    conn = connect(tmp_path / "app.db")
    assert rows(conn, "PRAGMA journal_mode=WAL") == [("wal",)]
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_exec('g', '(transact [[:a :n 1]])')")
    idle = subprocess.Popen(
        [PYTHON, "-c", textwrap.dedent(f"""
            import sqlite3, sys
            conn = sqlite3.connect({str(tmp_path / 'app.db')!r}, isolation_level=None)
            conn.enable_load_extension(True)
            conn.load_extension({EXT!r})
            print("read", conn.execute("SELECT v FROM g").fetchall(), flush=True)
            sys.stdin.readline()
            print("read", conn.execute("SELECT v FROM g ORDER BY v").fetchall(), flush=True)
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert idle.stdout.readline().strip() == "read [(1,)]"
        for i in range(5):
            conn.execute("SELECT datalog_exec('g', ?)", (f"(transact [[:c :n {i + 2}]])",))
        # Right after its statement (a quarter of a second at least) the snapshot is still parked.
        stats = json.loads(rows(conn, "SELECT datalog_stats('g')")[0][0])
        assert stats["readers"] == 1
        assert stats["oldest_reader"] == {"pid": idle.pid, "transactions_behind": 5}
        deadline = time.monotonic() + 10
        while True:
            stats = json.loads(rows(conn, "SELECT datalog_stats('g')")[0][0])
            if stats["readers"] == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert stats["readers"] == 0 and stats["oldest_reader"] is None
        idle.stdin.write("\n")
        idle.stdin.flush()
        assert idle.stdout.readline().strip() == "read [(1,), (2,), (3,), (4,), (5,), (6,)]"
    finally:
        idle.stdin.close()
        idle.wait(timeout=60)


def test_datalog_stats_names_the_reader_that_holds_an_old_snapshot(tmp_path):
    """A snapshot held open in another process keeps LMDB from reusing the pages it may see, so
    the index grows while it lasts: datalog_stats shows who holds it and how far behind it is.
    WAL mode: in rollback-journal mode a reader's open statement holds SQLite's shared lock, and
    no writer commits until it ends (as for any SQLite table)."""
    conn = connect(tmp_path / "app.db")
    assert rows(conn, "PRAGMA journal_mode=WAL") == [("wal",)]
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_exec('g', '(transact [[:a :n 1] [:b :n 2]])')")
    stats = json.loads(rows(conn, "SELECT datalog_stats('g')")[0][0])
    index = tmp_path / "app.db-g.graph"
    assert stats["graph"] == str(index)
    assert stats["readers"] == 0 and stats["oldest_reader"] is None
    assert stats["file_bytes"] == index.stat().st_size
    holder = subprocess.Popen(
        [PYTHON, "-c", textwrap.dedent(f"""
            import sqlite3, sys
            conn = sqlite3.connect({str(tmp_path / 'app.db')!r}, isolation_level=None)
            conn.enable_load_extension(True)
            conn.load_extension({EXT!r})
            cursor = conn.execute("SELECT v FROM g")
            print("holding", cursor.fetchone(), flush=True)
            sys.stdin.readline()
            print("rest", cursor.fetchall(), flush=True)
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding (1,)"
        for i in range(5):
            conn.execute("SELECT datalog_exec('g', ?)", (f"(transact [[:c :n {i}]])",))
        stats = json.loads(rows(conn, "SELECT datalog_stats('g')")[0][0])
        assert stats["readers"] == 1
        assert stats["oldest_reader"] == {"pid": holder.pid, "transactions_behind": 5}
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        out, _ = holder.communicate(timeout=60)
    assert out == "rest [(2,)]\n"  # the held statement read its snapshot to the end
    stats = json.loads(rows(conn, "SELECT datalog_stats('g')")[0][0])
    assert stats["readers"] == 0 and stats["oldest_reader"] is None
    assert rows(conn, "SELECT count(*) FROM g") == [(7,)]
