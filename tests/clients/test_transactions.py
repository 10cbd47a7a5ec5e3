"""SQLite transactions are the graph's transactions: its log is written in them, and its LMDB index
follows (graph_session.h)."""
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from conftest import EXT, connect, raises_datalog, rows


def values(conn, table="g"):
    return [v for (v,) in rows(conn, f"SELECT v FROM {table} ORDER BY v")]


def test_rollback_leaves_nothing(db):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ':friend', ':newcomer', 'ref')")
    db.execute("ROLLBACK")
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any'") == [(0,)]
    assert rows(db, "SELECT count(*) FROM g WHERE e = ':newcomer'") == [(0,)]
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)")
    assert rows(db, "SELECT v, tx FROM g") == [(2, 1)]  # the rolled-back one consumed no tx


def test_one_transaction_one_tx_counter(db):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("INSERT INTO g(e, a, v) VALUES (':y', ':n', 2), (':z', ':n', 3)")
    db.execute("COMMIT")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 4)")
    db.execute("BEGIN")
    db.execute("UPDATE g SET v = v * 10 WHERE v < 3")
    db.execute("DELETE FROM g WHERE v = 3")
    db.execute("COMMIT")
    assert rows(db, "SELECT v, tx FROM g ORDER BY v") == [(4, 2), (10, 3), (20, 3)]
    ((tx_times,),) = rows(db, "SELECT count(DISTINCT tx_time) FROM g WHERE tx = 3")
    assert tx_times == 1


def test_transactions_that_write_nothing_consume_no_counter(db):
    db.execute("CREATE TABLE plain(x)")
    db.execute("BEGIN")
    db.execute("INSERT INTO plain VALUES (1)")
    rows(db, "SELECT * FROM g")
    db.execute("COMMIT")
    db.execute("DELETE FROM g WHERE e = ':nobody'")  # matches nothing
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("DELETE FROM g WHERE e = ':x'")
    db.execute("ROLLBACK")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(db, "SELECT tx FROM g") == [(1,)]


def test_reads_inside_a_write_transaction_see_its_writes(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)")
    assert values(db) == [1, 2]
    assert rows(db, "SELECT v FROM g WHERE a = ':n' AND v = 2") == [(2,)]  # through AVET
    assert rows(db, "SELECT v FROM g WHERE e = ':x' AND v > 1") == [(2,)]   # through EAVT
    db.execute("DELETE FROM g WHERE v = 1")
    assert values(db) == [2]
    db.execute("UPDATE g SET v = 3 WHERE v = 2")
    assert values(db) == [3]
    assert rows(db, "SELECT v, tx FROM g") == [(3, 2)]
    db.execute("COMMIT")
    assert values(db) == [3]


def test_ordinary_table_and_graph_commit_and_roll_back_together(db):
    db.execute("CREATE TABLE plain(x)")
    db.execute("BEGIN")
    db.execute("INSERT INTO plain VALUES (1)")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("ROLLBACK")
    assert rows(db, "SELECT count(*) FROM plain") == [(0,)]
    assert values(db) == []
    db.execute("BEGIN")
    db.execute("INSERT INTO plain VALUES (2)")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)")
    db.execute("COMMIT")
    assert rows(db, "SELECT x FROM plain") == [(2,)]
    assert values(db) == [2]


def test_savepoints(db):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("SAVEPOINT a")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)")
    db.execute("SAVEPOINT b")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 3)")
    assert values(db) == [1, 2, 3]
    db.execute("ROLLBACK TO b")
    assert values(db) == [1, 2]
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 4)")
    db.execute("ROLLBACK TO b")        # again: back to the same point
    assert values(db) == [1, 2]
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 5)")
    db.execute("RELEASE b")
    assert values(db) == [1, 2, 5]
    db.execute("ROLLBACK TO a")
    assert values(db) == [1]
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 6)")
    db.execute("RELEASE a")
    db.execute("COMMIT")
    assert rows(db, "SELECT v, tx FROM g ORDER BY v") == [(1, 1), (6, 1)]


def test_savepoint_as_the_outer_transaction(db):
    db.execute("SAVEPOINT s")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("ROLLBACK TO s")
    db.execute("RELEASE s")
    assert values(db) == []
    db.execute("SAVEPOINT s")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)")
    db.execute("RELEASE s")
    assert not db.in_transaction
    assert rows(db, "SELECT v, tx FROM g") == [(2, 1)]


def test_graph_joins_a_transaction_inside_savepoints(db):
    """The table's first write comes after two savepoints were opened: rolling back to the
    outer one must undo it."""
    db.execute("CREATE TABLE plain(x)")
    db.execute("BEGIN")
    db.execute("INSERT INTO plain VALUES (1)")
    db.execute("SAVEPOINT a")
    db.execute("SAVEPOINT b")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("ROLLBACK TO a")
    assert values(db) == []
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)")
    db.execute("COMMIT")
    assert values(db) == [2]
    assert rows(db, "SELECT x FROM plain") == [(1,)]


def test_release_then_rollback_undoes_everything(db):
    db.execute("BEGIN")
    db.execute("SAVEPOINT a")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("RELEASE a")
    assert values(db) == [1]
    db.execute("ROLLBACK")
    assert values(db) == []


def test_two_tables_in_one_transaction_commit_together_and_share_savepoints(db):
    """Two tables, each with its own graph (a graph belongs to one table), written in one SQL
    transaction: one commit, each graph's first transaction, a savepoint rolled back in both."""
    db.execute("CREATE VIRTUAL TABLE h USING datalog")
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("INSERT INTO h(e, a, v) VALUES (':x', ':n', 2)")
    assert values(db) == [1] and values(db, "h") == [2]
    db.execute("SAVEPOINT s")
    db.execute("INSERT INTO h(e, a, v) VALUES (':x', ':n', 3)")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 4)")
    assert values(db) == [1, 4] and values(db, "h") == [2, 3]
    db.execute("ROLLBACK TO s")
    assert values(db) == [1] and values(db, "h") == [2]
    db.execute("COMMIT")
    assert rows(db, "SELECT v, tx FROM g ORDER BY v") == [(1, 1)]
    assert rows(db, "SELECT v, tx FROM h ORDER BY v") == [(2, 1)]


def test_two_graphs_in_one_transaction(db):
    db.execute("CREATE VIRTUAL TABLE other USING datalog('other.graph')")
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("INSERT INTO other(e, a, v) VALUES (':x', ':n', 2)")
    db.execute("ROLLBACK")
    assert values(db) == [] and values(db, "other") == []
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("INSERT INTO other(e, a, v) VALUES (':x', ':n', 2)")
    db.execute("COMMIT")
    assert values(db) == [1] and values(db, "other") == [2]


def test_insert_select_from_the_same_graph(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1), (':y', ':n', 2)")
    db.execute("INSERT INTO g(e, a, v) SELECT e, ':copy', v FROM g WHERE a = ':n'")
    assert rows(db, "SELECT e, v FROM g WHERE a = ':copy' ORDER BY e") == [(":x", 1), (":y", 2)]


def test_large_delete_and_update_see_every_row_once(db):
    db.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                  INSERT INTO g(e, a, v) SELECT i, ':n', i FROM n""")
    db.execute("UPDATE g SET v = v + 1 WHERE a = ':n'")
    assert rows(db, "SELECT count(*), min(v), max(v), sum(v) FROM g") == [
        (2000, 2, 2001, sum(range(2, 2002)))]
    db.execute("DELETE FROM g WHERE a = ':n' AND v > 1000")
    assert rows(db, "SELECT count(*), max(v) FROM g") == [(999, 1000)]
    db.execute("DELETE FROM g")
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]
    assert rows(db, "SELECT count(*) FROM g WHERE as_of = 1") == [(2000,)]


# --- two connections in one process ----------------------------------------------------------
#
# Both connections open one database (app.db) and its table w: a graph belongs to one database,
# and SQLite's write lock serialises its writers. A second writer waits SQLite's busy timeout
# (100 ms here: sqlite3.connect's timeout) and then gets SQLite's own error, "database is
# locked" (SQLITE_BUSY). Each test runs in both journal modes; where they differ (an open
# reader holds SQLite's shared lock in rollback-journal mode) the test says so.

JOURNALS = ["delete", "wal"]


def graph_connection(folder, timeout=0.1):
    conn = connect(folder / "app.db", check_same_thread=False, timeout=timeout)
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS w USING datalog")
    return conn


def set_journal(conn, journal):
    assert rows(conn, f"PRAGMA journal_mode={journal}") == [(journal,)]


@pytest.fixture(params=JOURNALS)
def journal(request):
    return request.param


@pytest.fixture
def shared(tmp_path, journal):
    """Two connections to app.db (SQLite busy timeout 100 ms), table w, journal mode journal."""
    first = graph_connection(tmp_path)
    set_journal(first, journal)
    second = graph_connection(tmp_path)
    yield first, second
    first.close()
    second.close()


def in_thread(fn):
    """Runs fn in a new thread (another writer thread) and returns or raises."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # re-raised in the caller
            out["error"] = e
    t = threading.Thread(target=run)
    t.start()
    t.join(60)
    assert not t.is_alive()
    if "error" in out:
        raise out["error"]
    return out.get("value")


def locked():
    """pytest.raises for SQLite's own busy error."""
    return pytest.raises(sqlite3.OperationalError, match="^database is locked$")


def test_second_writer_in_another_thread_waits_then_fails(shared):
    first, second = shared
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
    started = time.monotonic()
    with locked() as caught:
        in_thread(lambda: second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)"))
    assert caught.value.sqlite_errorname == "SQLITE_BUSY"
    assert 0.09 <= time.monotonic() - started < 3
    assert not second.in_transaction
    first.execute("COMMIT")
    in_thread(lambda: second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)"))
    assert rows(first, "SELECT v, tx FROM w ORDER BY v") == [(1, 1), (2, 2)]


def test_second_writer_on_the_same_thread_waits_its_busy_timeout_then_fails(shared):
    """SQLite cannot tell that the writer it waits for is on the same thread: the second writer
    waits its busy timeout (100 ms), fails, and nothing hangs."""
    first, second = shared
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
    started = time.monotonic()
    with locked() as caught:
        second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)")
    assert caught.value.sqlite_errorname == "SQLITE_BUSY"
    assert 0.09 <= time.monotonic() - started < 3
    assert not second.in_transaction
    assert values(second, "w") == []  # and it reads without waiting
    first.execute("COMMIT")
    second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)")
    assert rows(second, "SELECT v, tx FROM w ORDER BY v") == [(1, 1), (2, 2)]


def test_second_writer_in_an_explicit_transaction(shared):
    first, second = shared
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")

    def second_writes():
        second.execute("BEGIN")
        try:
            second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)")
        finally:
            second.execute("ROLLBACK")
    with locked():
        in_thread(second_writes)
    assert not second.in_transaction
    first.execute("COMMIT")
    assert rows(second, "SELECT v, tx FROM w") == [(1, 1)]


def test_waiting_writer_gets_in_when_the_first_commits(tmp_path, journal):
    first = graph_connection(tmp_path)
    set_journal(first, journal)
    second = graph_connection(tmp_path, timeout=5)
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
    outcome = {}

    def second_writes():
        started = time.monotonic()
        try:
            second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)")
            outcome["ok"] = True
        except sqlite3.Error as e:
            outcome["error"] = e
        outcome["waited"] = time.monotonic() - started
    t = threading.Thread(target=second_writes)
    t.start()
    time.sleep(0.3)
    first.execute("COMMIT")  # on the thread that began it
    t.join(30)
    assert outcome.get("ok"), outcome
    assert 0.2 < outcome["waited"] < 4
    assert rows(second, "SELECT v, tx FROM w ORDER BY v") == [(1, 1), (2, 2)]


def test_other_connection_sees_only_committed_writes(shared):
    first, second = shared
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 2)")
    assert values(first, "w") == [1, 2]
    # Readers never wait for the writer: with a 10 s busy timeout, a read that waited would take
    # 10 s.
    second.execute("PRAGMA busy_timeout = 10000")
    started = time.monotonic()
    assert values(second, "w") == [1]
    assert in_thread(lambda: values(second, "w")) == [1]
    assert time.monotonic() - started < 5
    second.execute("PRAGMA busy_timeout = 100")
    first.execute("COMMIT")
    assert values(second, "w") == [1, 2]


def test_open_statement_keeps_its_snapshot(shared, journal):
    first, second = shared
    first.execute("INSERT INTO w(e, a, v) VALUES (':a', ':n', 1), (':b', ':n', 2), (':c', ':n', 3)")
    cursor = second.execute("SELECT e, v FROM w WHERE a = ':n'")  # AEVT order: :a, :b, :c
    assert cursor.fetchone() == (":a", 1)
    if journal == "wal":
        first.execute("INSERT INTO w(e, a, v) VALUES (':d', ':n', 4)")
        first.execute("DELETE FROM w WHERE e = ':c'")
    else:  # the open statement holds SQLite's shared lock: no writer commits until it ends
        with locked():
            first.execute("INSERT INTO w(e, a, v) VALUES (':d', ':n', 4)")
    assert cursor.fetchall() == [(":b", 2), (":c", 3)]
    if journal == "delete":
        first.execute("INSERT INTO w(e, a, v) VALUES (':d', ':n', 4)")
        first.execute("DELETE FROM w WHERE e = ':c'")
    assert values(second, "w") == [1, 2, 4]
    assert rows(second, "SELECT e, tx FROM w ORDER BY e") == [(":a", 1), (":b", 1), (":d", 2)]


def test_read_transaction_keeps_its_snapshot(shared, journal):
    """A read inside BEGIN sees one state until it ends: in WAL mode while a writer commits, in
    rollback-journal mode by keeping the writer out."""
    first, second = shared
    first.execute("INSERT INTO w(e, a, v) VALUES (':a', ':n', 1)")
    second.execute("BEGIN")
    assert values(second, "w") == [1]
    if journal == "wal":
        first.execute("INSERT INTO w(e, a, v) VALUES (':b', ':n', 2)")
    else:
        with locked():
            first.execute("INSERT INTO w(e, a, v) VALUES (':b', ':n', 2)")
    assert values(second, "w") == [1]
    assert rows(second, "SELECT count(*) FROM w WHERE valid_at = 'any' AND as_of = 100") == [(1,)]
    second.execute("COMMIT")
    if journal == "delete":
        first.execute("INSERT INTO w(e, a, v) VALUES (':b', ':n', 2)")
    assert rows(second, "SELECT v, tx FROM w ORDER BY v") == [(1, 1), (2, 2)]


def test_self_join_reads_one_snapshot(shared, journal):
    first, second = shared
    first.execute("INSERT INTO w(e, a, v) VALUES (':a', ':n', 1), (':b', ':n', 2)")
    cursor = second.execute("SELECT x.e, y.e FROM w AS x JOIN w AS y ON y.a = x.a "
                            "WHERE x.a = ':n'")
    assert cursor.fetchone() == (":a", ":a")
    if journal == "wal":
        first.execute("INSERT INTO w(e, a, v) VALUES (':c', ':n', 3)")
    else:  # the open statement holds SQLite's shared lock: no writer commits until it ends
        with locked():
            first.execute("INSERT INTO w(e, a, v) VALUES (':c', ':n', 3)")
    # the inner scans that start after the commit still read the outer scan's snapshot
    assert cursor.fetchall() == [(":a", ":b"), (":b", ":a"), (":b", ":b")]


_HOLD_INDEX_LOCK = """
import fcntl, sys
lock = open(sys.argv[1], "r+b")
fcntl.flock(lock, fcntl.LOCK_EX)
print("holding", flush=True)
sys.stdin.readline()
"""


def test_busy_timeout_of_the_table_bounds_waiting_for_its_index(tmp_path):
    """Writers wait for each other on SQLite's lock; a table's busy_timeout bounds only the wait
    for its index's writer lock, which another process holds while it catches the index up from
    the log. Here another process holds it (the flock on the index's -lock file): a write to the
    table with busy_timeout=100 fails after 100 ms, though SQLite's busy timeout is 5 s; a write
    to a table with the default (5000 ms) waits, and gets in when the lock is released."""
    conn = connect(tmp_path / "app.db", check_same_thread=False, timeout=5)
    conn.execute("CREATE VIRTUAL TABLE quick USING datalog(busy_timeout=100)")
    conn.execute("CREATE VIRTUAL TABLE slow USING datalog")
    conn.execute("INSERT INTO quick(e, a, v) VALUES (':x', ':n', 1)")
    conn.execute("INSERT INTO slow(e, a, v) VALUES (':x', ':n', 1)")

    def hold(index):
        proc = subprocess.Popen([sys.executable, "-c", _HOLD_INDEX_LOCK, f"{index}-lock"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline() == "holding\n"
        return proc

    def release(proc):
        proc.stdin.write("\n")
        proc.stdin.flush()
        proc.wait(timeout=60)

    quick = tmp_path / "app.db-quick.graph"
    holder = hold(quick)
    try:
        started = time.monotonic()
        with raises_datalog(f"datalog: graph '{quick}' is locked by a writer in another process "
                            "(waited 100 ms)", sqlite3.OperationalError) as caught:
            conn.execute("INSERT INTO quick(e, a, v) VALUES (':x', ':n', 2)")
        assert caught.value.sqlite_errorname == "SQLITE_BUSY"
        assert 0.09 <= time.monotonic() - started < 2
        assert not conn.in_transaction
        assert values(conn, "quick") == [1]  # reading does not wait for the index's lock
        conn.execute("INSERT INTO slow(e, a, v) VALUES (':x', ':n', 2)")  # another index
    finally:
        release(holder)
    conn.execute("INSERT INTO quick(e, a, v) VALUES (':x', ':n', 2)")

    holder = hold(tmp_path / "app.db-slow.graph")
    try:
        releaser = threading.Timer(0.3, release, (holder,))
        releaser.start()
        started = time.monotonic()
        conn.execute("INSERT INTO slow(e, a, v) VALUES (':x', ':n', 3)")
        assert 0.2 < time.monotonic() - started < 4
        releaser.join()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    assert rows(conn, "SELECT v, tx FROM quick ORDER BY v") == [(1, 1), (2, 2)]
    assert rows(conn, "SELECT v, tx FROM slow ORDER BY v") == [(1, 1), (2, 2), (3, 3)]
    conn.close()


def test_connection_closed_inside_a_transaction_rolls_back(tmp_path):
    first = graph_connection(tmp_path)
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
    first.close()
    second = graph_connection(tmp_path)
    assert values(second, "w") == []
    second.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 2)")  # the write lock was freed
    assert rows(second, "SELECT v, tx FROM w") == [(2, 1)]


# A transaction ended on another thread than the one that began it: LMDB's writer mutex belongs
# to the beginning thread. These run in a child process, so a writer that hangs forever cannot
# hang the suite.
_OTHER_THREAD_SCRIPT = """
import sqlite3, sys, threading
conn = sqlite3.connect(sys.argv[1], isolation_level=None, check_same_thread=False)
conn.enable_load_extension(True)
conn.load_extension(sys.argv[2])
conn.execute("CREATE VIRTUAL TABLE w USING datalog(busy_timeout=100)")
conn.execute("BEGIN")
conn.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
def end():
    try:
        conn.execute(sys.argv[3])
        print("ended", flush=True)
    except sqlite3.Error as e:
        print("error", e, flush=True)
t = threading.Thread(target=end)
t.start()
t.join()
print("in transaction" if conn.in_transaction else "no transaction", flush=True)
print("values", conn.execute("SELECT v FROM w").fetchall(), flush=True)
conn.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 2)")
print("wrote", conn.execute("SELECT v, tx FROM w").fetchall(), flush=True)
"""


def _end_on_another_thread(tmp_path, statement):
    script = tmp_path / "other_thread.py"
    script.write_text(_OTHER_THREAD_SCRIPT)
    try:
        out = subprocess.run([sys.executable, str(script), str(tmp_path / "app.db"), EXT,
                              statement], capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the next write hung; output so far: {e.stdout!r}")
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_commit_on_another_thread_is_refused(tmp_path):
    """LMDB needs a write transaction committed on the thread that began it. SQLite then rolls
    the whole transaction back, and the graph must be writable again afterwards."""
    assert _end_on_another_thread(tmp_path, "COMMIT") == [
        "error datalog: a graph transaction must be committed on the thread that began it",
        "no transaction",
        "values []",
        "wrote [(2, 1)]",
    ]


def test_rollback_on_another_thread_releases_the_writer(tmp_path):
    assert _end_on_another_thread(tmp_path, "ROLLBACK") == [
        "ended",
        "no transaction",
        "values []",
        "wrote [(2, 1)]",
    ]


def test_named_query_table_in_temp_schema_follows_the_transaction(db):
    db.execute("CREATE VIRTUAL TABLE temp.q USING datalog_query(g, "
               "'(query [:find ?v :where [:x :n ?v]])')")
    assert rows(db, "SELECT * FROM q") == []
    db.execute("BEGIN")
    db.execute("SELECT datalog_exec('g', '(transact [[:x :n 1]])')")
    assert rows(db, "SELECT * FROM q") == [(1,)]  # the transaction's own write
    db.execute("ROLLBACK")
    assert rows(db, "SELECT * FROM q") == []
    db.execute("SELECT datalog_exec('g', '(transact [[:x :n 2]])')")
    assert rows(db, "SELECT * FROM q") == [(2,)]
    assert rows(db, "SELECT type, name FROM sqlite_temp_master WHERE name = 'q'") == [("table", "q")]
    assert rows(db, "SELECT count(*) FROM sqlite_master WHERE name = 'q'") == [(0,)]


def test_named_query_table_in_temp_schema_names_a_missing_graph(db):
    db.execute("CREATE VIRTUAL TABLE temp.q USING datalog_query(nosuch, "
               "'(query [:find ?v :where [:x :n ?v]])')")
    with raises_datalog("no graph table named 'nosuch'"):
        rows(db, "SELECT * FROM q")
