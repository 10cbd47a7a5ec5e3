"""Storage v2 (docs/STORAGE-V2.md): the graph's transaction log lives in shadow tables of the
SQLite database (g_log, g_meta), written inside the SQL transaction, and the LMDB file is a
derived index beside the database (app.db + g -> app.db-g.graph), caught up or rebuilt from the
log. SQLite's commit is the graph's commit: atomic with ordinary tables, isolated (no lost
updates), carried by backups, and the index may be lost or stale without losing anything."""
import inspect
import json
import os
import pathlib
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from conftest import EXT, UNFINISHED, connect, rows, rows_in_child

PYTHON = sys.executable  # Debian's /usr/bin/python3: it can load extensions (conftest checks)
KILLS = int(os.environ.get("STORAGE_KILLS", "50"))


def shadow_tables(conn, schema="main"):
    return rows(conn, f"SELECT type, name FROM {schema}.sqlite_schema "
                      "WHERE tbl_name = name ORDER BY name")


def current(conn, table="g"):
    """Every visible datom now, in a fixed order, with its transaction and valid time."""
    return rows(conn, f"SELECT e, a, v, vtype, tx, tx_time, valid_from, valid_to FROM {table} "
                      "ORDER BY e, a, v, valid_from")


def history(conn, as_of, table="g"):
    """Every datom of every valid-time window as of transaction as_of."""
    return rows(conn, f"SELECT e, a, v, vtype, tx, tx_time, valid_from, valid_to FROM {table} "
                      "WHERE valid_at = 'any' AND as_of = ? ORDER BY e, a, v, valid_from",
                (as_of,))


def q(conn, query, table="g"):
    return [c1 for (c1,) in rows(conn, "SELECT c1 FROM datalog_q(?, ?) ORDER BY c1",
                                 (table, query))]


def values_of_n(conn, table="g"):
    return [v for (v,) in rows(conn, f"SELECT v FROM {table} WHERE a = ':n' ORDER BY v")]


# --- a graph with some history, shared by the backup, index and rebuild tests ----------------

RULE = "(rule [(named ?x) [?x :n _]])"


def make_history(conn):
    """Five transactions (asserts, a ref, a retraction, valid time, an update) and a rule."""
    conn.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':n', 1), (':bob', ':n', 2)")  # tx 1
    conn.execute("BEGIN")                                                                # tx 2
    conn.execute("INSERT INTO g(e, a, v) VALUES (':carol', ':n', 3)")
    conn.execute("INSERT INTO g(e, a, v, vtype) VALUES (':alice', ':friend', ':bob', 'ref')")
    conn.execute("COMMIT")
    conn.execute("DELETE FROM g WHERE e = ':bob' AND a = ':n'")                          # tx 3
    conn.execute("SELECT datalog_exec('g', '(transact [[7 :n 4] [:dan :name \"Dan\" "      # tx 4
                 "{:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"}]])')")
    conn.execute("SELECT datalog_exec('g', ?)", (RULE,))                                 # no tx
    conn.execute("UPDATE g SET v = 30 WHERE e = ':carol' AND a = ':n'")                  # tx 5


def answers(conn):
    """What the graph answers, through the table and through Datalog, now and at every tx."""
    out = {"current": current(conn)}
    for tx in range(0, 7):
        out[f"as_of {tx}"] = history(conn, tx)
    out["datalog now"] = q(conn, "(query [:find ?v :where [?e :n ?v]])")
    out["datalog as-of 2"] = q(conn, "(query [:find ?v :as-of 2 :where [?e :n ?v]])")
    out["rule"] = q(conn, "(query [:find ?x :where (named ?x)])")
    out["rules"] = rows(conn, "SELECT datalog_rules('g')")
    return out


def check_history_literally(conn):
    """The exact answers of make_history's graph (so that comparing copies is not vacuous)."""
    assert rows(conn, "SELECT e, a, v, tx FROM g WHERE valid_at = 'any' AND as_of = 2 "
                      "ORDER BY e, a, v") == [
        (":alice", ":friend", ":bob", 2), (":alice", ":n", 1, 1), (":bob", ":n", 2, 1),
        (":carol", ":n", 3, 2)]
    assert rows(conn, "SELECT e, a, v, vtype, tx FROM g ORDER BY e, a, v") == [
        (7, ":n", 4, "integer", 4), (":alice", ":friend", ":bob", "ref", 2),
        (":alice", ":n", 1, "integer", 1), (":carol", ":n", 30, "integer", 5)]
    assert rows(conn, "SELECT e, v, valid_from, valid_to FROM g "
                      "WHERE a = ':name' AND valid_at = 'any'") == [
        (":dan", "Dan", "2020-01-01T00:00:00.000Z", "2021-01-01T00:00:00.000Z")]
    assert rows(conn, "SELECT v FROM g WHERE e = ':bob' AND a = ':n' AND as_of = 2") == [(2,)]
    assert rows(conn, "SELECT v FROM g WHERE e = ':bob' AND a = ':n'") == []
    assert q(conn, "(query [:find ?v :where [?e :n ?v]])") == [1, 4, 30]
    assert q(conn, "(query [:find ?v :as-of 2 :where [?e :n ?v]])") == [1, 2, 3]
    assert q(conn, "(query [:find ?x :where (named ?x)])") == [7, ":alice", ":carol"]
    assert rows(conn, "SELECT datalog_rules('g')") == [(RULE,)]


@pytest.fixture
def original(tmp_path):
    """app.db with table g holding make_history's graph; closed, so its files are at rest."""
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    make_history(conn)
    check_history_literally(conn)
    expected = answers(conn)
    conn.close()
    return tmp_path / "app.db", expected


# --- 1. shadow tables and the derived index path ---------------------------------------------

def test_create_makes_shadow_tables_and_the_derived_index_file(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert shadow_tables(conn) == [("table", "g"), ("table", "g_log"), ("table", "g_meta")]
    assert rows(conn, "SELECT sql FROM sqlite_schema WHERE name = 'g'") == [
        ("CREATE VIRTUAL TABLE g USING datalog",)]
    assert shadow_tables(conn, "temp") == []
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert (tmp_path / "app.db-g.graph").is_file()
    assert not (tmp_path / "app.graph").exists()
    graphs = sorted(p.name for p in tmp_path.iterdir() if ".graph" in p.name)
    assert graphs == ["app.db-g.graph", "app.db-g.graph-lock", "app.db-g.graph-sync"]
    conn.close()
    conn = connect(tmp_path / "app.db")
    assert rows(conn, "SELECT e, a, v, tx FROM g") == [(":x", ":n", 1, 1)]
    conn.close()


def test_shadow_tables_live_in_the_schema_of_the_table(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute(f"ATTACH '{tmp_path / 'aux.db'}' AS aux")
    conn.execute("CREATE VIRTUAL TABLE aux.g USING datalog")
    conn.execute("INSERT INTO aux.g(e, a, v) VALUES (':x', ':n', 1)")
    assert shadow_tables(conn, "aux") == [("table", "g"), ("table", "g_log"), ("table", "g_meta")]
    assert shadow_tables(conn, "main") == []
    assert (tmp_path / "aux.db-g.graph").is_file()
    assert not (tmp_path / "app.db-g.graph").exists()
    assert not (tmp_path / "aux.graph").exists()
    conn.close()


def test_two_databases_with_one_stem_get_separate_indexes(tmp_path):
    first = connect(tmp_path / "data.db")
    second = connect(tmp_path / "data.sqlite")
    for conn in (first, second):
        conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    first.execute("INSERT INTO g(e, a, v) VALUES (':in-db', ':n', 1)")
    second.execute("INSERT INTO g(e, a, v) VALUES (':in-sqlite', ':n', 2)")
    second.execute("INSERT INTO g(e, a, v) VALUES (':in-sqlite', ':n', 3)")
    assert (tmp_path / "data.db-g.graph").is_file()
    assert (tmp_path / "data.sqlite-g.graph").is_file()
    assert not (tmp_path / "data.graph").exists()
    for _ in range(2):  # open, then again from fresh connections
        assert rows(first, "SELECT e, v, tx FROM g WHERE valid_at = 'any'") == [(":in-db", 1, 1)]
        assert rows(second, "SELECT e, v, tx FROM g WHERE valid_at = 'any' ORDER BY v") == [
            (":in-sqlite", 2, 1), (":in-sqlite", 3, 2)]
        first.close()
        second.close()
        first = connect(tmp_path / "data.db")
        second = connect(tmp_path / "data.sqlite")
    first.close()
    second.close()


# --- 2. DROP and RENAME carry the shadow tables ----------------------------------------------

def test_drop_table_drops_the_shadow_tables(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("DROP TABLE g")
    assert shadow_tables(db) == []
    # a new table g is a new, empty graph: the old facts and counters are gone with the log
    db.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert shadow_tables(db) == [("table", "g"), ("table", "g_log"), ("table", "g_meta")]
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 100") == [(0,)]
    db.execute("INSERT INTO g(e, a, v) VALUES (':y', ':n', 2)")
    assert rows(db, "SELECT e, v, tx FROM g WHERE valid_at = 'any'") == [(":y", 2, 1)]


def test_rename_renames_the_shadow_tables_and_keeps_the_graph(db_path, db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("INSERT INTO g(e, a, v) VALUES (':y', ':n', 2)")
    db.execute("DELETE FROM g WHERE e = ':x'")
    db.execute("ALTER TABLE g RENAME TO h")
    assert shadow_tables(db) == [("table", "h"), ("table", "h_log"), ("table", "h_meta")]
    for conn in (db, None):
        if conn is None:
            db.close()
            conn = connect(db_path)
        assert shadow_tables(conn) == [("table", "h"), ("table", "h_log"), ("table", "h_meta")]
        assert rows(conn, "SELECT e, v, tx FROM h") == [(":y", 2, 2)]
        assert rows(conn, "SELECT e, v, tx FROM h WHERE as_of = 2 ORDER BY v") == [
            (":x", 1, 1), (":y", 2, 2)]
        assert q(conn, "(query [:find ?v :where [?e :n ?v]])", table="h") == [2]
    conn.execute("INSERT INTO h(e, a, v) VALUES (':z', ':n', 3)")
    assert rows(conn, "SELECT e, v, tx FROM h ORDER BY v") == [(":y", 2, 2), (":z", 3, 4)]
    conn.close()


# --- 3. atomicity with ordinary tables: SIGKILL at random moments ----------------------------

_KILL_CHILD = """
import sqlite3, sys
extension, database, journal = sys.argv[1:4]
conn = sqlite3.connect(database, isolation_level=None, timeout=10)
conn.enable_load_extension(True)
conn.load_extension(extension)
conn.execute("PRAGMA journal_mode=" + journal)
i = conn.execute("SELECT coalesce(max(i), 0) FROM t").fetchone()[0]
print("ready", flush=True)
while True:
    i += 1
    conn.execute("BEGIN")
    conn.execute("INSERT INTO t(i) VALUES (?)", (i,))
    conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':n', ?)", (i, i))
    conn.execute("COMMIT")
    print(i, flush=True)
"""


def _wait_for_ready(out_path, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if out_path.read_text().startswith("ready"):
            return
        if proc.poll() is not None:
            return  # the caller reports how it ended
        time.sleep(0.005)
    raise AssertionError("the child did not start within 30 s")


def _check_atomic(conn, printed):
    in_t = [i for (i,) in rows(conn, "SELECT i FROM t ORDER BY i")]
    in_g = rows(conn, "SELECT v, tx FROM g WHERE a = ':n' ORDER BY v")
    # contiguous: every transaction is all or nothing, and the child resumes from max(i) + 1
    assert in_t == list(range(1, len(in_t) + 1))
    assert [v for v, _ in in_g] == in_t, "a transaction reached one store only"
    assert all(v == tx for v, tx in in_g), "graph counters: one per committed transaction"
    assert rows(conn, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 1000000000") \
        == [(len(in_t),)]
    lost = sorted(set(printed) - set(in_t))
    assert not lost, f"acknowledged commits lost: {lost[:10]}"
    return len(in_t)


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_killed_writer_never_leaves_a_transaction_in_one_store_only(tmp_path, journal):
    database = tmp_path / "app.db"
    conn = connect(database)
    assert rows(conn, f"PRAGMA journal_mode={journal}") == [(journal,)]
    conn.execute("CREATE TABLE t(i INTEGER PRIMARY KEY)")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.close()
    script = tmp_path / "kill_child.py"
    script.write_text(_KILL_CHILD)
    rng = random.Random(f"storage-v2-{journal}")
    printed = []
    committed = 0
    for kill in range(KILLS):
        out_path = tmp_path / f"out{kill}.txt"
        err_path = tmp_path / f"err{kill}.txt"
        with open(out_path, "w") as out, open(err_path, "w") as err:
            proc = subprocess.Popen([PYTHON, str(script), EXT, str(database), journal],
                                    stdout=out, stderr=err)
        try:
            if rng.random() < 0.25:  # now and then while it opens the database and the graph
                time.sleep(rng.uniform(0, 0.1))
            else:                    # mostly in the middle of its transactions
                _wait_for_ready(out_path, proc)
                time.sleep(rng.uniform(0, 0.2))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        assert proc.returncode == -signal.SIGKILL, err_path.read_text()
        printed += [int(line) for line in out_path.read_text().split()
                    if line.isdigit()]
        conn = connect(database)
        try:
            committed = _check_atomic(conn, printed)
        finally:
            conn.close()
    assert printed, "no transaction committed before any kill: the test tested nothing"
    conn = connect(database)
    assert _check_atomic(conn, printed) == committed
    # and the graph goes on from there
    conn.execute("BEGIN")
    conn.execute("INSERT INTO t(i) VALUES (?)", (committed + 1,))
    conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':n', ?)", (committed + 1, committed + 1))
    conn.execute("COMMIT")
    assert _check_atomic(conn, printed) == committed + 1
    conn.close()


# --- 4. rollback, and a COMMIT that fails --------------------------------------------------

def test_rollback_leaves_neither_the_row_nor_the_fact(db_path, db):
    db.execute("CREATE TABLE t(i INTEGER PRIMARY KEY)")
    db.execute("BEGIN")
    db.execute("INSERT INTO t(i) VALUES (1)")
    db.execute("INSERT INTO g(e, a, v) VALUES (1, ':n', 1)")
    db.execute("ROLLBACK")
    fresh = connect(db_path)
    for conn in (db, fresh):
        assert rows(conn, "SELECT count(*) FROM t") == [(0,)]
        assert rows(conn, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 100") == [
            (0,)]
    fresh.close()


def test_commit_that_fails_on_a_read_lock_then_rolls_back_leaves_nothing(db_path):
    writer = connect(db_path)
    assert rows(writer, "PRAGMA journal_mode=DELETE") == [("delete",)]
    writer.execute("CREATE TABLE t(i INTEGER PRIMARY KEY)")
    writer.execute("CREATE VIRTUAL TABLE g USING datalog")
    writer.execute("PRAGMA busy_timeout=0")
    reader = connect(db_path)
    reader.execute("BEGIN")
    assert rows(reader, "SELECT * FROM t") == []  # holds a SHARED lock until it ends
    writer.execute("BEGIN")
    writer.execute("INSERT INTO t(i) VALUES (1)")
    writer.execute("INSERT INTO g(e, a, v) VALUES (1, ':n', 1)")
    with pytest.raises(sqlite3.OperationalError, match="database is locked"):
        writer.execute("COMMIT")
    assert writer.in_transaction
    writer.execute("ROLLBACK")
    reader.execute("COMMIT")
    assert rows(writer, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 100") == [
        (0,)]
    reader.close()
    writer.close()
    fresh = connect(db_path)
    assert rows(fresh, "SELECT count(*) FROM t") == [(0,)]
    assert rows(fresh, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 100") == [(0,)]
    # the failed commit consumed no counter and left nothing a later transaction could see
    fresh.execute("INSERT INTO g(e, a, v) VALUES (2, ':n', 2)")
    assert rows(fresh, "SELECT e, v, tx FROM g WHERE valid_at = 'any' AND as_of = 100") == [
        (2, 2, 1)]
    fresh.close()
    fresh = connect(db_path)
    assert rows(fresh, "SELECT e, v, tx FROM g WHERE valid_at = 'any' AND as_of = 100") == [
        (2, 2, 1)]
    fresh.close()


# --- 5. no lost updates ----------------------------------------------------------------------

INCREMENTS = 200

def increment(conn, times):
    """times read-then-write transactions on the balance, each retried whole when SQLite says
    the database is locked or busy (SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT); returns the retries."""
    done = retries = 0
    while done < times:
        try:
            conn.execute("BEGIN")
            got = conn.execute("SELECT v FROM g WHERE e = 1 AND a = ':balance'").fetchall()
            if len(got) != 1:
                raise AssertionError(f"balance rows: {got}")
            conn.execute("UPDATE g SET v = ? WHERE e = 1 AND a = ':balance'", (got[0][0] + 1,))
            conn.execute("COMMIT")
            done += 1
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e):
                raise
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            retries += 1
    return retries


def _balance_graph(path):
    conn = connect(path)
    assert rows(conn, "PRAGMA journal_mode=WAL") == [("wal",)]
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (1, ':balance', 100)")
    conn.close()


def _final_balance(path):
    conn = connect(path)
    try:
        assert rows(conn, "SELECT v FROM g WHERE e = 1 AND a = ':balance'") == [
            (100 + 2 * INCREMENTS,)]
        # every increment is one committed transaction after the first
        assert rows(conn, "SELECT max(tx) FROM g WHERE valid_at = 'any' AND as_of = 1000000") \
            == [(1 + 2 * INCREMENTS,)]
    finally:
        conn.close()


def test_no_lost_updates_between_two_threads(db_path):
    _balance_graph(db_path)
    outcome = {}
    start = threading.Barrier(2)

    def worker(name):
        try:
            conn = connect(db_path, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout=5000")
            start.wait(60)
            try:
                outcome[name] = increment(conn, INCREMENTS)
            finally:
                conn.close()
        except BaseException as e:  # reported by the test
            outcome[name] = e
    threads = [threading.Thread(target=worker, args=(n,)) for n in ("first", "second")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    for name in ("first", "second"):
        assert isinstance(outcome.get(name), int), outcome
    _final_balance(db_path)


_INCREMENT_CHILD = """
import sqlite3, sys
extension, database, times = sys.argv[1], sys.argv[2], int(sys.argv[3])
""" + inspect.getsource(increment) + """
conn = sqlite3.connect(database, isolation_level=None)
conn.enable_load_extension(True)
conn.load_extension(extension)
conn.execute("PRAGMA busy_timeout=5000")
conn.execute("SELECT count(*) FROM g").fetchall()
print("ready", flush=True)
sys.stdin.readline()
print("retries", increment(conn, times), flush=True)
conn.close()
"""


def test_no_lost_updates_between_two_processes(db_path, tmp_path):
    _balance_graph(db_path)
    script = tmp_path / "increment.py"
    script.write_text(_INCREMENT_CHILD)
    procs = [subprocess.Popen([PYTHON, str(script), EXT, str(db_path), str(INCREMENTS)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        for proc in procs:
            assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            assert re.fullmatch(r"retries \d+\n", out), (out, err)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    _final_balance(db_path)


# --- 6. backups carry the graph --------------------------------------------------------------

def _copy_with_shell(source, target):
    out = subprocess.run(["sqlite3", str(source), "-cmd", f".load {EXT}", f".backup {target}"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stderr == "", out.stderr


def _copy_with_vacuum_into(source, target):
    conn = connect(source)
    conn.execute("VACUUM INTO ?", (str(target),))
    conn.close()


def _copy_with_backup_api(source, target):
    conn = connect(source)
    assert rows(conn, "SELECT count(*) FROM g") == [(4,)]  # the source's table is open
    dest = sqlite3.connect(str(target))
    conn.backup(dest)
    dest.close()
    conn.close()


COPIERS = {"shell .backup": _copy_with_shell, "VACUUM INTO": _copy_with_vacuum_into,
           "Connection.backup": _copy_with_backup_api}


@pytest.mark.parametrize("folder", ["same folder", "new folder"])
@pytest.mark.parametrize("method", list(COPIERS))
def test_a_copy_of_the_database_answers_as_the_original(original, tmp_path, method, folder):
    source, expected = original
    target_folder = tmp_path if folder == "same folder" else tmp_path / "elsewhere"
    target_folder.mkdir(exist_ok=True)
    target = target_folder / "copy.db"
    COPIERS[method](source, target)
    assert not (target_folder / "copy.db-g.graph").exists()
    copy = connect(target)
    assert shadow_tables(copy) == [("table", "g"), ("table", "g_log"), ("table", "g_meta")]
    check_history_literally(copy)
    assert answers(copy) == expected
    assert (target_folder / "copy.db-g.graph").is_file()  # made by the first open
    # the copy is a graph of its own from now on
    copy.execute("INSERT INTO g(e, a, v) VALUES (':copy', ':n', 100)")
    assert rows(copy, "SELECT tx FROM g WHERE e = ':copy'") == [(6,)]
    copy.close()
    conn = connect(source)
    assert answers(conn) == expected
    conn.execute("INSERT INTO g(e, a, v) VALUES (':original', ':n', 200)")
    conn.close()
    copy = connect(target)
    assert rows(copy, "SELECT e, v, tx FROM g WHERE tx = 6") == [(":copy", 100, 6)]
    assert q(copy, "(query [:find ?v :where [?e :n ?v]])") == [1, 4, 30, 100]
    copy.close()


# --- 7. the index may be stale, missing or ahead: the log decides ----------------------------

def _transactions(path, first, count):
    """count autocommit transactions, each asserting (k, ':n', k) for k = first, first + 1, ..."""
    conn = connect(path)
    for k in range(first, first + count):
        conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':n', ?)", (k, k))
    conn.close()


def _remove_index(folder):
    for name in ("app.db-g.graph", "app.db-g.graph-lock", "app.db-g.graph-sync"):
        if (folder / name).exists():
            (folder / name).unlink()


def test_an_index_that_lost_its_last_writes_catches_up(db_path, tmp_path):
    conn = connect(db_path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.close()
    _transactions(db_path, 1, 3)
    assert (tmp_path / "app.db-g.graph").is_file()
    shutil.copy(tmp_path / "app.db-g.graph", tmp_path / "old-index")
    _transactions(db_path, 4, 2)
    conn = connect(db_path)
    conn.execute("DELETE FROM g WHERE e = 2 AND a = ':n'")  # tx 6: a retraction
    conn.close()
    _remove_index(tmp_path)
    shutil.copy(tmp_path / "old-index", tmp_path / "app.db-g.graph")
    conn = connect(db_path)
    assert rows(conn, "SELECT e, v, tx FROM g WHERE a = ':n' ORDER BY v") == [
        (1, 1, 1), (3, 3, 3), (4, 4, 4), (5, 5, 5)]
    assert rows(conn, "SELECT e, v, tx FROM g WHERE a = ':n' AND as_of = 5 ORDER BY v") == [
        (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4), (5, 5, 5)]
    assert q(conn, "(query [:find ?v :where [?e :n ?v]])") == [1, 3, 4, 5]
    conn.execute("INSERT INTO g(e, a, v) VALUES (7, ':n', 7)")
    assert rows(conn, "SELECT tx FROM g WHERE e = 7") == [(7,)]
    conn.close()


def test_a_missing_index_is_rebuilt(original, tmp_path):
    source, expected = original
    _remove_index(tmp_path)
    conn = connect(source)
    check_history_literally(conn)
    assert answers(conn) == expected
    assert (tmp_path / "app.db-g.graph").is_file()
    conn.execute("INSERT INTO g(e, a, v) VALUES (':next', ':n', 6)")
    assert rows(conn, "SELECT tx FROM g WHERE e = ':next'") == [(6,)]
    conn.close()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "intact"])
def test_an_index_written_unsynced_before_a_system_crash_is_never_read(original, tmp_path, damage):
    """The index commits without syncing; after a crash of the system (simulated: the sync marker
    names another boot, and the file is damaged) it is removed at open and rebuilt from the log,
    whatever it holds."""
    source, expected = original
    index = tmp_path / "app.db-g.graph"
    assert (tmp_path / "app.db-g.graph-sync").read_text() == "clean"  # synced at the last close
    (tmp_path / "app.db-g.graph-sync").write_text("dirty 00000000-0000-0000-0000-000000000000")
    size = index.stat().st_size
    if damage == "garbage":
        with open(index, "r+b") as f:
            f.seek(4096)
            f.write(os.urandom(size - 4096))
    elif damage == "truncated":
        os.truncate(index, size // 3)
    conn = connect(source)
    check_history_literally(conn)
    assert answers(conn) == expected
    assert (tmp_path / "app.db-g.graph-sync").read_text().startswith("dirty ")  # this boot's
    conn.execute("INSERT INTO g(e, a, v) VALUES (':next', ':n', 6)")
    assert rows(conn, "SELECT tx FROM g WHERE e = ':next'") == [(6,)]
    conn.close()
    assert (tmp_path / "app.db-g.graph-sync").read_text() == "clean"


def test_closing_a_synced_index_writes_nothing_and_an_unsynced_one_is_synced(original, tmp_path):
    """The last close in a process syncs what was committed unsynced and marks the index clean.
    An index already clean has nothing to sync: a reader's close used to cost two fdatasync calls
    (the index's and the marker's rewrite); now the marker is left untouched. One left dirty by
    this boot (a writer killed before its close) is still synced by the next close."""
    source, expected = original
    marker = tmp_path / "app.db-g.graph-sync"
    assert marker.read_text() == "clean"
    os.utime(marker, ns=(10**18, 10**18))
    conn = connect(source)
    assert answers(conn) == expected
    conn.close()
    assert marker.read_text() == "clean" and marker.stat().st_mtime_ns == 10**18
    boot = pathlib.Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    marker.write_text(f"dirty {boot}")
    conn = connect(source)
    assert answers(conn) == expected
    conn.close()
    assert marker.read_text() == "clean"


def test_an_index_ahead_of_a_restored_database_shows_only_the_database(db_path, tmp_path):
    conn = connect(db_path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.close()
    _transactions(db_path, 1, 3)
    shutil.copy(db_path, tmp_path / "old.db")
    _transactions(db_path, 4, 3)
    shutil.copy(tmp_path / "old.db", db_path)  # the database goes back; the index stays newer
    for reopen in range(2):
        conn = connect(db_path)
        if reopen == 0:
            assert rows(conn, "SELECT e, v, tx FROM g WHERE a = ':n' ORDER BY v") == [
                (1, 1, 1), (2, 2, 2), (3, 3, 3)]
            assert rows(conn, "SELECT e, v, tx FROM g WHERE valid_at = 'any' AND as_of = 100 "
                              "ORDER BY v") == [(1, 1, 1), (2, 2, 2), (3, 3, 3)]
            assert q(conn, "(query [:find ?v :where [?e :n ?v]])") == [1, 2, 3]
            conn.execute("INSERT INTO g(e, a, v) VALUES (40, ':n', 40)")
        expected = [(1, 1, 1), (2, 2, 2), (3, 3, 3), (40, 40, 4)]
        assert rows(conn, "SELECT e, v, tx FROM g WHERE a = ':n' ORDER BY v") == expected
        assert rows(conn, "SELECT e, v, tx FROM g WHERE valid_at = 'any' AND as_of = 100 "
                          "ORDER BY v") == expected
        assert rows(conn, "SELECT e, v, tx FROM g WHERE as_of = 4 AND e IN (4, 5, 6)") == []
        assert q(conn, "(query [:find ?v :where [?e :n ?v]])") == [1, 2, 3, 40]
        conn.close()


# --- 8. datalog_rebuild ----------------------------------------------------------------------

def test_datalog_rebuild_replays_the_log(original):
    source, expected = original
    conn = connect(source)
    assert answers(conn) == expected
    replayed = rows(conn, "SELECT datalog_rebuild('g')")[0][0]
    # every one of make_history's five transactions (its rule may or may not count as one)
    assert isinstance(replayed, int) and replayed >= 5
    assert answers(conn) == expected
    conn.close()
    conn = connect(source)
    assert answers(conn) == expected
    conn.execute("INSERT INTO g(e, a, v) VALUES (':next', ':n', 6)")
    assert rows(conn, "SELECT tx FROM g WHERE e = ':next'") == [(6,)]
    conn.close()


def test_a_rebuild_commits_the_index_in_parts_and_one_cut_short_is_rebuilt_by_the_next_reader(db_path):
    conn = connect(db_path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    # Many log rows (one per transaction), so the rebuild reads the log in many steps.
    for first in range(0, 40_000, 400):
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO g(e, a, v) VALUES (?, ':n', ?)",
                         [(f":r{i}", i) for i in range(first, first + 400)])
        conn.execute("COMMIT")
    expected = rows(conn, "SELECT count(*), sum(v), count(DISTINCT tx) FROM g")
    assert expected == [(40_000, sum(range(40_000)), 100)]
    conn.execute("SELECT datalog_limit('write_memory_mb', 1)")

    # A whole rebuild in parts gives the same graph.
    calls = [0]

    def count(*_):
        calls[0] += 1
        return 0

    conn.set_progress_handler(count, 1)
    assert rows(conn, "SELECT datalog_rebuild('g')") == [(100,)]
    conn.set_progress_handler(None, 0)
    assert rows(conn, "SELECT count(*), sum(v), count(DISTINCT tx) FROM g") == expected
    assert '"ok":true' in rows(conn, "SELECT datalog_check('g')")[0][0]

    # Cut short halfway (the progress handler stops the log's read): the parts it committed stay,
    # the index's position says it holds none of the log, no reader uses it, and the next one
    # rebuilds it. (In one index transaction, the cut rebuild would leave the old index whole.)
    seen = [0]

    def stop_halfway(*_):
        seen[0] += 1
        return 1 if seen[0] > calls[0] // 2 else 0

    conn.set_progress_handler(stop_halfway, 1)
    with pytest.raises(sqlite3.Error, match="interrupted"):
        conn.execute("SELECT datalog_rebuild('g')")
    conn.set_progress_handler(None, 0)
    other = connect(db_path)
    stats = json.loads(rows(other, "SELECT datalog_stats('g')")[0][0])
    assert (stats["log_rows"], stats["indexed_rows"]) == (100, 0)
    # The parts carry the index's owner: the connection that opened it kept the file (one without
    # an owner is taken for a stale index and replaced by an empty one).
    assert stats["file_bytes"] > 1_000_000
    assert rows(other, "SELECT count(*), sum(v), count(DISTINCT tx) FROM g") == expected
    assert '"ok":true' in rows(other, "SELECT datalog_check('g')")[0][0]
    assert rows(conn, "SELECT count(*), sum(v), count(DISTINCT tx) FROM g") == expected
    other.close()
    conn.close()


# --- 9. an explicit graph file belongs to one database ---------------------------------------

def test_a_graph_file_of_another_database_is_refused(tmp_path):
    first = connect(tmp_path / "a.db")
    first.execute("CREATE VIRTUAL TABLE g USING datalog('shared.graph')")
    first.execute("INSERT INTO g(e, a, v) VALUES (':a', ':n', 1)")
    second = connect(tmp_path / "b.db")
    for attempt in range(2):  # while a.db is open, then with a.db closed
        with pytest.raises(sqlite3.Error) as caught:
            second.execute("CREATE VIRTUAL TABLE g USING datalog('shared.graph')")
        assert "shared.graph" in str(caught.value)
        assert re.search(r"another database", str(caught.value)), str(caught.value)
        assert shadow_tables(second) == []
        if attempt == 0:
            first.close()
    second.close()
    first = connect(tmp_path / "a.db")
    assert rows(first, "SELECT e, v, tx FROM g") == [(":a", 1, 1)]
    first.execute("INSERT INTO g(e, a, v) VALUES (':a', ':n', 2)")
    assert rows(first, "SELECT e, v, tx FROM g ORDER BY v") == [(":a", 1, 1), (":a", 2, 2)]
    first.close()


# --- 10. transaction counters are v1's -------------------------------------------------------

def test_tx_numbering(db_path, db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':a', ':n', 1)")
    db.execute("INSERT INTO g(e, a, v) VALUES (':b', ':n', 2)")
    assert rows(db, "SELECT datalog_exec('g', '(transact [[:c :n 3]]) (transact [[:d :n 4]])')") \
        == [("transacted: tx 3, 1 datom\ntransacted: tx 4, 1 datom",)]
    assert rows(db, "SELECT datalog_exec('g', '(rule [(r ?x) [?x :n _]])')") == [
        ("rule: r defined",)]
    assert rows(db, "SELECT datalog_exec('g', '(transact [[:e :n 5]])')") == [
        ("transacted: tx 5, 1 datom",)]
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':f', ':n', 6)")
    assert rows(db, "SELECT datalog_exec('g', '(transact [[:g :n 7]]) (transact [[:h :n 8]])')") \
        == [("transacted: tx 6, 1 datom\ntransacted: tx 6, 1 datom",)]
    db.execute("COMMIT")
    expected = [(":a", 1), (":b", 2), (":c", 3), (":d", 4), (":e", 5), (":f", 6), (":g", 6),
                (":h", 6)]
    assert rows(db, "SELECT e, tx FROM g ORDER BY e") == expected
    db.close()
    conn = connect(db_path)
    assert rows(conn, "SELECT e, tx FROM g ORDER BY e") == expected
    assert q(conn, "(query [:find ?x :where (r ?x)])") == [
        ":a", ":b", ":c", ":d", ":e", ":f", ":g", ":h"]
    conn.execute("INSERT INTO g(e, a, v) VALUES (':i', ':n', 9)")
    assert rows(conn, "SELECT tx FROM g WHERE e = ':i'") == [(7,)]
    conn.close()


# --- 11. datalog_exec and SQL transactions ---------------------------------------------------

def test_datalog_exec_in_a_rolled_back_transaction_leaves_nothing(db_path, db):
    db.execute("CREATE TABLE t(i INTEGER PRIMARY KEY)")
    db.execute("BEGIN")
    db.execute("INSERT INTO t(i) VALUES (1)")
    db.execute("SELECT datalog_exec('g', '(transact [[:a :n 1]]) (rule [(r ?x) [?x :n _]]) "
               "(transact [[:b :n 2]])')")
    assert values_of_n(db) == [1, 2]
    db.execute("ROLLBACK")
    fresh = connect(db_path)
    for conn in (db, fresh):
        assert rows(conn, "SELECT count(*) FROM t") == [(0,)]
        assert rows(conn, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 100") == [
            (0,)]
        assert rows(conn, "SELECT datalog_rules('g')") == [("",)]
    fresh.close()
    assert rows(db, "SELECT datalog_exec('g', '(transact [[:c :n 3]])')") == [
        ("transacted: tx 1, 1 datom",)]


_EXEC_AND_EXIT = """
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[2], isolation_level=None)
conn.enable_load_extension(True)
conn.load_extension(sys.argv[1])
print(conn.execute("SELECT datalog_exec('g', '(transact [[:a :n 1]]) (transact [[:b :n 2]])')")
      .fetchone()[0], flush=True)
print(conn.in_transaction, flush=True)
os._exit(0)  # no close, no commit: the call committed by itself
"""


def test_datalog_exec_in_autocommit_commits_by_itself(db_path, db, tmp_path):
    db.close()
    script = tmp_path / "exec_and_exit.py"
    script.write_text(_EXEC_AND_EXIT)
    out = subprocess.run([PYTHON, str(script), EXT, str(db_path)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "transacted: tx 1, 1 datom", "transacted: tx 2, 1 datom", "False"]
    conn = connect(db_path)
    assert rows(conn, "SELECT e, v, tx FROM g ORDER BY v") == [(":a", 1, 1), (":b", 2, 2)]
    # a call that fails writes nothing, not even its commands that ran before the failure
    with pytest.raises(sqlite3.Error, match="integer overflow"):
        conn.execute("SELECT datalog_exec('g', '(transact [[:c :n 3]]) (query [:find ?y :where "
                     "[_ :n ?v] [(+ ?v 9223372036854775807) ?y]])')")
    assert not conn.in_transaction
    conn.close()
    conn = connect(db_path)
    assert rows(conn, "SELECT e, v, tx FROM g WHERE valid_at = 'any' AND as_of = 100 "
                      "ORDER BY v") == [(":a", 1, 1), (":b", 2, 2)]
    assert rows(conn, "SELECT datalog_exec('g', '(transact [[:d :n 4]])')") == [
        ("transacted: tx 3, 1 datom",)]
    conn.close()


def test_a_temp_query_table_sees_what_other_connections_commit(db_path):
    """A statement of the temp schema holds no read transaction of main: the log's tip it reads
    must still be the newest, not one remembered from an earlier statement."""
    reader = connect(db_path)
    assert rows(reader, "PRAGMA journal_mode=WAL") == [("wal",)]  # a reader does not block a writer
    reader.execute("CREATE VIRTUAL TABLE g USING datalog")
    reader.execute("CREATE VIRTUAL TABLE temp.n_of USING datalog_query(g, "
                   "'(query [:find ?v :in ?e :where [?e :n ?v]])')")
    writer = connect(db_path)
    for k in range(1, 4):
        writer.execute("INSERT INTO g(e, a, v) VALUES (?, ':n', ?)", (k, k * 10))
        assert rows(reader, "SELECT v FROM n_of(?)", (k,)) == [(k * 10,)]
        assert rows(reader, "SELECT count(*) FROM g") == [(k,)]
    # Between statements the temp table keeps the tip while the index's state is the same; every
    # acknowledged commit changed that state first, so none is missed, from another process
    # either, and a rolled-back one is never seen.
    for k in range(4, 40):
        writer.execute("BEGIN")
        writer.execute("INSERT INTO g(e, a, v) VALUES (?, ':n', ?)", (k, -1))
        writer.execute("ROLLBACK")
        assert rows(reader, "SELECT v FROM n_of(?)", (k,)) == []
        if k % 2:
            writer.execute("INSERT INTO g(e, a, v) VALUES (?, ':n', ?)", (k, k * 10))
        else:
            assert rows_in_child(db_path, f"SELECT datalog_exec('g', '(transact [[{k} :n {k * 10}]])')") \
                == [("transacted: tx %d, 1 datom" % k,)]
        assert rows(reader, "SELECT v FROM n_of(?)", (k,)) == [(k * 10,)]
    # A tip read inside a read transaction is that transaction's, not the newest: once it ends,
    # the temp table must not keep it.
    reader.execute("CREATE TABLE t(x)")
    reader.execute("BEGIN")
    assert rows(reader, "SELECT count(*) FROM t") == [(0,)]  # the snapshot begins here
    writer.execute("INSERT INTO g(e, a, v) VALUES (100, ':n', 1000)")
    assert rows(reader, "SELECT v FROM n_of(100)") == []
    reader.execute("COMMIT")
    assert rows(reader, "SELECT v FROM n_of(100)") == [(1000,)]
    writer.close()
    reader.close()


# --- a large transaction commits the index in parts ----------------------------------------------
# Once the index pages a transaction changed pass write_memory_mb and no savepoint is open, the
# index commits part way (docs/STORAGE.md): memory stays bounded, readers see nothing of it, and a
# ROLLBACK leaves records that the next write removes by rebuilding the index from the log.

def _insert_many(conn, first, count, attribute=":n"):
    conn.executemany(f"INSERT INTO g(e, a, v) VALUES (?, '{attribute}', ?)",
                     [(f":big{i}", i) for i in range(first, first + count)])


def test_a_large_transaction_commits_its_index_in_parts_and_readers_see_nothing_of_it(db_path):
    conn = connect(db_path)
    assert rows(conn, "PRAGMA journal_mode=WAL") == [("wal",)]
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':before', ':n', -1)")
    conn.execute("SELECT datalog_limit('write_memory_mb', 1)")
    other = connect(db_path)
    conn.execute("BEGIN")
    _insert_many(conn, 0, 30_000)
    conn.execute("SELECT datalog_exec('g', '(transact [[:script :n -2]])')")
    assert rows(conn, "SELECT count(*) FROM g") == [(30_002,)]
    # The index holds parts of it already; another connection sees only what committed.
    with pytest.raises(sqlite3.Error, match=UNFINISHED):
        other.execute("SELECT datalog_check('g')")
    assert rows(other, "SELECT e, v FROM g") == [(":before", -1)]
    conn.execute("COMMIT")
    assert rows(other, "SELECT count(*), count(DISTINCT tx) FROM g") == [(30_002, 2)]
    assert '"ok":true' in rows(other, "SELECT datalog_check('g')")[0][0]

    # Rolled back after parts were committed: nothing of it is seen, and the next write rebuilds.
    conn.execute("BEGIN")
    _insert_many(conn, 100_000, 30_000)
    conn.execute("ROLLBACK")
    assert rows(other, "SELECT count(*) FROM g") == [(30_002,)]
    assert rows(conn, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 1000000") == [(30_002,)]
    with pytest.raises(sqlite3.Error, match=UNFINISHED):
        conn.execute("SELECT datalog_check('g')")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':after', ':n', -3)")
    assert rows(other, "SELECT count(*), max(tx) FROM g") == [(30_003, 3)]
    assert rows(other, "SELECT count(*) FROM g WHERE e = ':big100000'") == [(0,)]
    assert '"ok":true' in rows(conn, "SELECT datalog_check('g')")[0][0]
    other.close()
    conn.close()


def test_one_statement_of_many_rows_in_autocommit_mode_commits_in_parts_and_a_failed_one_leaves_nothing(db_path):
    conn = connect(db_path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_limit('write_memory_mb', 1)")
    # New entities each time: their idents go into the index as they are made, where the datom
    # records of a statement wait in memory (up to 32 MiB) to go in sorted.
    many = ("WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x + 1 < 60000) "
            "INSERT INTO g(e, a, v) SELECT {entity} || x, {attribute}, x FROM i")
    conn.execute(many.format(entity="':m'", attribute="':n'"))
    assert rows(conn, "SELECT count(*), count(DISTINCT tx) FROM g") == [(60_000, 1)]
    assert '"ok":true' in rows(conn, "SELECT datalog_check('g')")[0][0]
    # The last row fails: SQLite rolls the statement's transaction back after parts were committed.
    with pytest.raises(sqlite3.Error, match="attribute must be a keyword"):
        conn.execute(many.format(entity="':z'", attribute="CASE WHEN x = 59999 THEN 'not-a-keyword' ELSE ':o' END"))
    assert rows(conn, "SELECT count(*) FROM g WHERE a = ':o'") == [(0,)]
    with pytest.raises(sqlite3.Error, match=UNFINISHED):
        conn.execute("SELECT datalog_check('g')")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':after', ':n', -1)")
    assert rows(conn, "SELECT count(*), max(tx) FROM g") == [(60_001, 2)]
    assert '"ok":true' in rows(conn, "SELECT datalog_check('g')")[0][0]
    conn.close()


def test_inside_a_savepoint_nothing_is_committed_in_parts(db_path):
    conn = connect(db_path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_limit('write_memory_mb', 1)")
    conn.execute("BEGIN")
    conn.execute("SAVEPOINT s")
    _insert_many(conn, 0, 30_000)
    conn.execute("ROLLBACK TO s")
    conn.execute("RELEASE s")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':kept', ':n', 1)")
    conn.execute("COMMIT")
    assert rows(conn, "SELECT e, v, tx FROM g") == [(":kept", 1, 1)]
    assert '"ok":true' in rows(conn, "SELECT datalog_check('g')")[0][0]
    conn.close()


def test_a_cursor_reads_on_across_a_part_committed_under_it(db_path):
    conn = connect(db_path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    _insert_many(conn, 0, 2_000, attribute=":old")
    conn.execute("SELECT datalog_limit('write_memory_mb', 1)")
    conn.execute("BEGIN")
    cursor = conn.execute("SELECT v FROM g WHERE a = ':old'")
    seen = []
    for (v,) in cursor:
        seen.append(v)
        if v % 500 == 0:  # 10,000 new facts each time: several parts committed under the cursor
            _insert_many(conn, 10_000 + v * 20, 10_000, attribute=":new")
    other = connect(db_path)
    with pytest.raises(sqlite3.Error, match=UNFINISHED):  # parts were committed
        other.execute("SELECT datalog_check('g')")
    other.close()
    conn.execute("COMMIT")
    assert sorted(seen) == list(range(2_000))
    assert rows(conn, "SELECT count(*) FROM g WHERE a = ':new'") == [(40_000,)]
    assert '"ok":true' in rows(conn, "SELECT datalog_check('g')")[0][0]
    conn.close()


# --- the index is derivable: random transactions, then rebuilt from the log --------------------

def _every_datom(conn):
    """The whole history as the index shows it: every record, every valid window, every tx."""
    top = rows(conn, "SELECT coalesce(max(tx), 0) FROM g_log")[0][0]
    return ([history(conn, as_of) for as_of in range(0, top + 1)],
            rows(conn, "SELECT datalog_rules('g')"),
            q(conn, "(query [:find ?e :where [?e :n _]])"))


def _random_work(conn, rng):
    """One SQL transaction (or autocommit statement) of random graph writes: asserts with
    valid times, refs, long values, retractions of asserted and of never-asserted facts,
    updates, reassertions, savepoints rolled back and released, failing statements, rules."""
    def fact():
        return rng.choice([":a", ":b", ":c", 7, 8]), rng.choice([":n", ":m"]), rng.randrange(4)

    def write():
        kind = rng.randrange(8)
        e, a, v = fact()
        if kind == 0:
            conn.execute("INSERT INTO g(e, a, v) VALUES (?, ?, ?)", (e, a, v))
        elif kind == 1:
            conn.execute("INSERT INTO g(e, a, v, valid_from, valid_to) VALUES (?, ?, ?, ?, ?)",
                         (e, a, v, f"20{10 + v}-01-01", f"20{20 + v}-01-01"))
        elif kind == 2:
            conn.execute("DELETE FROM g WHERE e = ? AND a = ? AND v = ?", (e, a, v))
        elif kind == 3:
            conn.execute("UPDATE g SET v = ? WHERE e = ? AND a = ?", (v + 10, e, a))
        elif kind == 4:
            conn.execute("INSERT INTO g(e, a, v, vtype) VALUES (?, ':ref', ?, 'ref')",
                         (e, rng.choice([":a", ":b", ":zz"])))
        elif kind == 5:
            conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':long', ?)", (e, "x" * 300 + str(v)))
        elif kind == 6:
            cmd = rng.choice([f"(transact [[{e if isinstance(e, int) else e} {a} {v}]])",
                              f"(retract [[{e if isinstance(e, int) else e} {a} {v}]])",
                              f"(rule [(r{v} ?x) [?x {a} _]])"])
            conn.execute("SELECT datalog_exec('g', ?)", (cmd,))
        else:
            try:  # a statement that fails on its second row undoes only itself
                conn.execute("INSERT INTO g(e, a, v) VALUES (?, ?, ?), (?, 'not-a-keyword', 1)",
                             (e, a, v, e))
            except sqlite3.Error:
                pass

    if rng.random() < 0.4:
        write()
        return
    conn.execute("BEGIN")
    for _ in range(rng.randrange(1, 6)):
        if rng.random() < 0.3:
            conn.execute("SAVEPOINT s")
            write()
            conn.execute("ROLLBACK TO s" if rng.random() < 0.5 else "RELEASE s")
        else:
            write()
    conn.execute("COMMIT" if rng.random() < 0.8 else "ROLLBACK")


@pytest.mark.parametrize("seed", range(int(os.environ.get("STORAGE_SEEDS", "4"))))
def test_an_index_rebuilt_from_the_log_is_the_index_that_was_written(db_path, tmp_path, seed):
    conn = connect(db_path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    rng = random.Random(seed)
    for _ in range(60):
        _random_work(conn, rng)
    written = _every_datom(conn)
    assert written[0][-1], "the random work wrote nothing"
    assert rows(conn, "SELECT datalog_rebuild('g')")[0][0] > 0
    assert _every_datom(conn) == written
    conn.close()
    for suffix in ("", "-lock", "-sync"):
        os.remove(tmp_path / f"app.db-g.graph{suffix}")
    conn = connect(db_path)
    assert _every_datom(conn) == written
    conn.close()


def test_rules_are_read_as_of_the_statement_snapshot(db_path):
    """A transaction that holds an old snapshot sees the rules of that snapshot: not a rule
    defined after it began, and still one dropped after it began."""
    reader = connect(db_path)
    reader.execute("PRAGMA journal_mode=WAL")
    reader.execute("CREATE VIRTUAL TABLE g USING datalog")
    reader.execute("SELECT datalog_exec('g', '(transact [[:a :n 1] [:b :m 2]])')")
    reader.execute("SELECT datalog_exec('g', '(rule [(old ?x) [?x :n _]])')")
    writer = connect(db_path)
    reader.execute("BEGIN")
    before = rows(reader, "SELECT datalog_rules('g')")
    assert "old" in before[0][0]
    writer.execute("SELECT datalog_exec('g', '(rule [(new ?x) [?x :m _]])')")
    writer.execute("SELECT datalog_drop_rule('g', 'old')")
    assert rows(reader, "SELECT datalog_rules('g')") == before
    assert q(reader, "(query [:find ?x :where (old ?x)])") == [":a"]
    reader.execute("COMMIT")
    after = rows(reader, "SELECT datalog_rules('g')")[0][0]
    assert "new" in after and "old" not in after
    assert q(reader, "(query [:find ?x :where (new ?x)])") == [":b"]
    # the index rebuilt from the log keeps the same rules, and the dropped one stays dropped
    assert rows(reader, "SELECT datalog_rebuild('g')")[0][0] > 0
    assert rows(reader, "SELECT datalog_rules('g')")[0][0] == after
    writer.close()
    reader.close()
