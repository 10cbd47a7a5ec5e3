"""SQLite transactions drive the graph's LMDB write transaction (graph_session.h)."""
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from conftest import EXT, connect, known_bug, raises_datalog, rows


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


def test_two_tables_on_one_graph_share_the_transaction(db):
    db.execute("CREATE VIRTUAL TABLE h USING datalog(file='app.graph')")
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("INSERT INTO h(e, a, v) VALUES (':x', ':n', 2)")
    assert values(db, "h") == [1, 2]
    db.execute("SAVEPOINT s")
    db.execute("INSERT INTO h(e, a, v) VALUES (':x', ':n', 3)")
    db.execute("ROLLBACK TO s")
    db.execute("COMMIT")
    assert rows(db, "SELECT v, tx FROM g ORDER BY v") == [(1, 1), (2, 1)]


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
# The connections use different SQLite databases naming one graph file: two connections on one
# SQLite database would first meet SQLite's own file lock ("database is locked"), which says
# nothing about the graph.

def graph_connection(folder, name, busy_timeout=100):
    conn = connect(folder / f"{name}.db", check_same_thread=False, timeout=0.1)
    conn.execute("CREATE VIRTUAL TABLE w USING datalog(file='shared.graph', "
                 f"busy_timeout={busy_timeout})")
    return conn


@pytest.fixture
def shared(tmp_path):
    """Two connections (a.db, b.db), each with table w (busy_timeout=100) on shared.graph."""
    first = graph_connection(tmp_path, "a")
    second = graph_connection(tmp_path, "b")
    yield first, second
    first.close()
    second.close()


def in_thread(fn):
    """Runs fn in a new thread (another writer thread to LMDB) and returns or raises."""
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


def test_second_writer_in_another_thread_waits_then_fails(shared, tmp_path):
    first, second = shared
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
    started = time.monotonic()
    message = (f"datalog: graph '{tmp_path / 'shared.graph'}' is locked by another writer in "
               "this process (waited 100 ms)")
    with raises_datalog(message, sqlite3.OperationalError) as caught:
        in_thread(lambda: second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)"))
    assert caught.value.sqlite_errorname == "SQLITE_BUSY"
    assert 0.09 <= time.monotonic() - started < 3
    assert not second.in_transaction
    first.execute("COMMIT")
    in_thread(lambda: second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)"))
    assert rows(first, "SELECT v, tx FROM w ORDER BY v") == [(1, 1), (2, 2)]


def test_second_writer_on_the_same_thread_fails_at_once(shared, tmp_path):
    first, second = shared
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
    started = time.monotonic()
    with raises_datalog(f"datalog: graph '{tmp_path / 'shared.graph'}' is being written by "
                        "another connection on this thread", sqlite3.OperationalError) as caught:
        second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)")
    assert caught.value.sqlite_errorname == "SQLITE_BUSY"
    assert time.monotonic() - started < 0.09  # waiting could never end: fail at once
    first.execute("COMMIT")
    second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)")
    assert values(second, "w") == [1, 2]


def test_second_writer_in_an_explicit_transaction(shared, tmp_path):
    first, second = shared
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")

    def second_writes():
        second.execute("BEGIN")
        try:
            second.execute("INSERT INTO w(e, a, v) VALUES (':y', ':n', 2)")
        finally:
            second.execute("ROLLBACK")
    with raises_datalog("is locked by another writer in this process", sqlite3.OperationalError):
        in_thread(second_writes)
    first.execute("COMMIT")
    assert values(second, "w") == [1]


def test_waiting_writer_gets_in_when_the_first_commits(tmp_path):
    first = graph_connection(tmp_path, "a")
    second = graph_connection(tmp_path, "b", busy_timeout=5000)
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
    started = time.monotonic()
    assert values(second, "w") == [1]                  # readers never wait for the writer
    assert in_thread(lambda: values(second, "w")) == [1]
    assert time.monotonic() - started < 0.09
    first.execute("COMMIT")
    assert values(second, "w") == [1, 2]


def test_open_statement_keeps_its_snapshot(shared):
    first, second = shared
    first.execute("INSERT INTO w(e, a, v) VALUES (':a', ':n', 1), (':b', ':n', 2), (':c', ':n', 3)")
    cursor = second.execute("SELECT e, v FROM w WHERE a = ':n'")  # AEVT order: :a, :b, :c
    assert cursor.fetchone() == (":a", 1)
    first.execute("INSERT INTO w(e, a, v) VALUES (':d', ':n', 4)")
    first.execute("DELETE FROM w WHERE e = ':c'")
    assert cursor.fetchall() == [(":b", 2), (":c", 3)]
    assert values(second, "w") == [1, 2, 4]


def test_self_join_reads_one_snapshot(shared):
    first, second = shared
    first.execute("INSERT INTO w(e, a, v) VALUES (':a', ':n', 1), (':b', ':n', 2)")
    cursor = second.execute("SELECT x.e, y.e FROM w AS x JOIN w AS y ON y.a = x.a "
                            "WHERE x.a = ':n'")
    assert cursor.fetchone() == (":a", ":a")
    first.execute("INSERT INTO w(e, a, v) VALUES (':c', ':n', 3)")
    # the inner scans that start after the commit still read the outer scan's snapshot
    assert cursor.fetchall() == [(":a", ":b"), (":b", ":a"), (":b", ":b")]


def test_busy_timeout_of_the_table_written_applies(tmp_path):
    """A connection whose first table on a graph has the default busy_timeout (5000 ms) and
    whose second table on the same graph asks for 100 ms: writing through the second waits
    100 ms, not 5 s."""
    first = graph_connection(tmp_path, "a")
    second = connect(tmp_path / "b.db", check_same_thread=False)
    second.execute("CREATE VIRTUAL TABLE slow USING datalog(file='shared.graph')")
    second.execute("CREATE VIRTUAL TABLE quick USING datalog(file='shared.graph', busy_timeout=100)")
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="waited 100 ms"):
        in_thread(lambda: second.execute("INSERT INTO quick(e, a, v) VALUES (':y', ':n', 2)"))
    elapsed = time.monotonic() - started
    first.execute("ROLLBACK")
    assert elapsed < 2


def test_connection_closed_inside_a_transaction_rolls_back(tmp_path):
    first = graph_connection(tmp_path, "a")
    first.execute("BEGIN")
    first.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 1)")
    first.close()
    second = graph_connection(tmp_path, "b")
    assert values(second, "w") == []
    second.execute("INSERT INTO w(e, a, v) VALUES (':x', ':n', 2)")  # the writer lock was freed
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
