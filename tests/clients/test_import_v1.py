"""datalog_import_v1(table, file): a graph of the first storage format, where the graph file held
the only copy of the facts, copied with its whole history into a new store table (its log, then
its index rebuilt from the log).

The fixture (fixtures/v1.db and its graph file fixtures/v1.mdb, copied to v1.graph) was made by
the build of commit 6956f77, the last of the first storage format, with the SQL in
fixtures/README.md. Every expected answer below is what that build gave for it."""
import datetime
import os
import shutil
import sqlite3

import pytest

from conftest import connect, raises_datalog, rows

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

# Wall times of the 9 transactions (ms), from the v1 file's transaction log; the tx_time column
# of the v1 build showed those with visible datoms as T1 ... T9.
TX_MS = {1: 1796423153461, 2: 1796423153517, 3: 1796423153633, 4: 1796423153693,
         5: 1796423153747, 6: 1796423153801, 7: 1796423153855, 8: 1796423153917,
         9: 1796423154030}
T1 = "2026-12-04T22:25:53.461Z"
T2 = "2026-12-04T22:25:53.517Z"
T4 = "2026-12-04T22:25:53.693Z"
T6 = "2026-12-04T22:25:53.801Z"
T7 = "2026-12-04T22:25:53.855Z"
T9 = "2026-12-04T22:25:54.030Z"

BIO_B = "Carol " + "b" * 400  # long values: stored out of line (giants) in both formats
BIO_C = "Carol " + "c" * 350
THING = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"

# The v1 build's full history: (first as_of that shows the row, last one, or None: still shown),
# row = (e, a, v, vtype, tx, tx_time, valid_from, valid_to).
HISTORY = [
    (1, 3, (":alice", ":age", 30, "integer", 1, T1, T1, None)),
    (1, 7, (":alice", ":friend", ":bob", "ref", 1, T1, T1, None)),
    (1, None, (":alice", ":name", "Alice", "string", 1, T1, T1, None)),
    (1, 2, (":bob", ":name", "Bob", "string", 1, T1, T1, None)),
    (1, 5, (42, ":name", "Forty-two", "string", 1, T1, T1, None)),
    (1, None, (42, ":owner", ":alice", "ref", 1, T1, T1, None)),
    (2, None, (":alice", ":role", "engineer", "string", 2, T2, "2021-01-01T00:00:00.000Z", None)),
    (2, None, (":alice", ":role", "intern", "string", 2, T2, "2020-01-01T00:00:00.000Z",
               "2021-01-01T00:00:00.000Z")),
    (2, 6, (":carol", ":bio", BIO_B, "string", 2, T2, T2, None)),
    (4, None, (":alice", ":age", 31, "integer", 4, T4, T1, None)),        # the UPDATE
    (6, None, (42, ":name", "Forty-two", "string", 6, T6, T6, None)),     # the reassertion
    (7, None, (":carol", ":bio", BIO_C, "string", 7, T7, T2, None)),
    (9, None, (THING, ":name", "Thing", "string", 9, T9, T9, None)),
    (9, None, (":carol", ":active", 1, "boolean", 9, T9, T9, None)),
    (9, None, (":carol", ":born", "1990-05-06T07:08:09.010Z", "instant", 9, T9, T9, None)),
    (9, None, (":carol", ":id", "6ba7b811-9dad-11d1-80b4-00c04fd430c8", "uuid", 9, T9, T9, None)),
    (9, None, (":carol", ":kind", ":person", "keyword", 9, T9, T9, None)),
    (9, None, (":carol", ":photo", b"\x00\xff\x10", "bytes", 9, T9, T9, None)),
    (9, None, (":carol", ":score", 2.5, "float", 9, T9, T9, None)),
]

RULES = "(rule [(owned-by ?x ?o) [?x :owner ?o]])\n(rule [(named ?e ?n) [?e :name ?n]])"
COLUMNS = "e, a, v, vtype, tx, tx_time, valid_from, valid_to"


def expected_history(n):
    return sorted((row for first, last, row in HISTORY if first <= n and (last is None or n <= last)),
                  key=repr)


def history(conn, as_of, table="g2"):
    return sorted(rows(conn, f"SELECT {COLUMNS} FROM {table} WHERE valid_at = 'any' AND as_of = ? "
                             "ORDER BY e, a, v, tx, valid_from", (as_of,)), key=repr)


def iso(ms):
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def q(conn, query, table="g2"):
    return sorted(rows(conn, "SELECT c1, c2 FROM datalog_q(?, ?)", (table, query)), key=repr)


def assert_v1_graph(conn, table="g2"):
    """Everything the v1 build answered for the fixture."""
    for n in range(0, 11):
        assert history(conn, n, table) == expected_history(n), n
    for n, ms in TX_MS.items():  # a time as_of finds each transaction by its wall time
        assert history(conn, iso(ms), table) == expected_history(n), n
        assert history(conn, iso(ms - 1), table) == expected_history(n - 1), n
    now = [row for row in expected_history(9) if row[2] != "intern"]  # valid until 2021
    assert sorted(rows(conn, f"SELECT {COLUMNS} FROM {table}"), key=repr) == now
    assert q(conn, "(query [:find ?n ?o :where [?x :owner ?o] [?x :name ?n]])", table) == [
        ("Forty-two", ":alice")]
    assert q(conn, "(query [:find ?x ?o :where (owned-by ?x ?o)])", table) == [(42, ":alice")]
    assert q(conn, "(query [:find ?e ?n :where (named ?e ?n)])", table) == sorted(
        [(42, "Forty-two"), (":alice", "Alice"), (THING, "Thing")], key=repr)
    assert q(conn, "(query [:find ?n ?a :as-of 5 :where [?e :name ?n] [?e :age ?a]])", table) == [
        ("Alice", 31)]
    assert rows(conn, "SELECT datalog_rules(?)", (table,)) == [(RULES,)]


@pytest.fixture
def v1(tmp_path):
    """The fixture's database and graph file in a fresh folder: (database path, graph path)."""
    shutil.copy(os.path.join(FIXTURES, "v1.db"), tmp_path / "v1.db")
    shutil.copy(os.path.join(FIXTURES, "v1.mdb"), tmp_path / "v1.graph")
    return tmp_path / "v1.db", tmp_path / "v1.graph"


@pytest.fixture
def conn(v1):
    c = connect(v1[0])
    c.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    yield c
    c.close()


def test_a_v1_table_names_the_import(v1):
    c = connect(v1[0])
    with raises_datalog("table main.g was made by the first storage format, where graph "
                        f"'{v1[1]}' held the only copy of the facts; import it into a new table "
                        "with CREATE VIRTUAL TABLE g2 USING datalog; SELECT datalog_import_v1('g2', "
                        f"'{v1[1]}')"):
        rows(c, "SELECT count(*) FROM g")
    c.close()


def test_import_copies_the_whole_history(v1, conn):
    before = v1[1].read_bytes()
    assert rows(conn, "SELECT datalog_import_v1('g2', 'v1.graph')") == [(9,)]
    assert_v1_graph(conn)
    # One log row per transaction, with the v1 counters and wall times (the elided-only tx 5
    # included); the idents are made by the first, the rules by the last.
    assert rows(conn, "SELECT seq, tx, tx_time FROM g2_log ORDER BY seq") == [
        (n, n, TX_MS[n]) for n in range(1, 10)]
    assert v1[1].read_bytes() == before  # the v1 file is only read


def test_the_next_write_takes_the_next_counter(conn):
    rows(conn, "SELECT datalog_import_v1('g2', 'v1.graph')")
    conn.execute("INSERT INTO g2(e, a, v) VALUES (':dan', ':name', 'Dan')")
    [(tx, tx_time)] = rows(conn, "SELECT tx, tx_time FROM g2 WHERE e = ':dan'")
    assert tx == 10 and tx_time > T9
    # Idents made after the import do not collide with the imported ones.
    assert rows(conn, "SELECT datalog_exec('g2', '(transact [[:erin :owner :carol]])')") == [
        ("transacted: tx 11, 1 datom",)]
    assert q(conn, "(query [:find ?x ?o :where [?x :owner ?o]])") == sorted(
        [(42, ":alice"), (":erin", ":carol")], key=repr)
    assert history(conn, 9) == expected_history(9)


def test_a_reopened_database_rebuilds_the_same_graph_from_the_log(v1, conn):
    rows(conn, "SELECT datalog_import_v1('g2', 'v1.graph')")
    conn.close()
    index = v1[0].parent / "v1.db-g2.graph"
    assert index.exists()
    for suffix in ("", "-lock", "-sync"):
        if os.path.exists(f"{index}{suffix}"):
            os.remove(f"{index}{suffix}")
    c = connect(v1[0])
    assert_v1_graph(c)
    assert rows(c, "SELECT datalog_rebuild('g2')") == [(9,)]
    assert_v1_graph(c)
    c.close()


def test_only_into_an_empty_table(conn):
    assert rows(conn, "SELECT datalog_import_v1('g2', 'v1.graph')") == [(9,)]
    with raises_datalog("datalog: table main.g2 already holds a graph; import into a new table"):
        rows(conn, "SELECT datalog_import_v1('g2', 'v1.graph')")
    conn.execute("CREATE VIRTUAL TABLE g3 USING datalog")
    conn.execute("INSERT INTO g3(e, a, v) VALUES (':x', ':n', 1)")
    with raises_datalog("datalog: table main.g3 already holds a graph; import into a new table"):
        rows(conn, "SELECT datalog_import_v1('g3', 'v1.graph')")
    assert rows(conn, "SELECT e, tx FROM g3") == [(":x", 1)]
    assert_v1_graph(conn)


def test_a_file_that_is_not_a_v1_graph(v1, conn):
    folder = v1[0].parent
    rows(conn, "SELECT count(*) FROM g2")  # makes g2's own index, a graph of this build's format
    with raises_datalog(f"datalog: '{folder}/v1.db-g2.graph' is not a graph of the first storage "
                        "format: it has format 7") as caught:
        rows(conn, "SELECT datalog_import_v1('g2', 'v1.db-g2.graph')")
    assert caught.value.sqlite_errorname == "SQLITE_NOTADB"
    (folder / "notes.txt").write_text("not a graph at all\n" * 500)
    with raises_datalog(f"datalog: '{folder}/notes.txt' is not a graph of the first storage "
                        "format") as caught:
        rows(conn, "SELECT datalog_import_v1('g2', 'notes.txt')")
    assert caught.value.sqlite_errorname == "SQLITE_NOTADB"
    assert not (folder / "notes.txt-lock").exists()
    assert rows(conn, "SELECT count(*) FROM g2_log") == [(0,)]


def test_a_missing_file(v1, conn):
    folder = v1[0].parent
    with raises_datalog(f"datalog: graph file '{folder}/nowhere.graph' does not exist") as caught:
        rows(conn, "SELECT datalog_import_v1('g2', 'nowhere.graph')")
    assert caught.value.sqlite_errorname == "SQLITE_CANTOPEN"
    assert not (folder / "nowhere.graph").exists()
    with raises_datalog("datalog: datalog_import_v1: the graph file name is empty"):
        rows(conn, "SELECT datalog_import_v1('g2', '')")
    with raises_datalog("datalog: no graph table named 'nothing'"):
        rows(conn, "SELECT datalog_import_v1('nothing', 'v1.graph')")
    conn.execute("CREATE TABLE t(x)")
    with raises_datalog("datalog: 't' is not a datalog store table"):
        rows(conn, "SELECT datalog_import_v1('t', 'v1.graph')")
    # Not into the v1 table itself: it has no log.
    with raises_datalog("table main.g was made by the first storage format"):
        rows(conn, "SELECT datalog_import_v1('g', 'v1.graph')")


def test_the_file_is_confined_like_a_tables(v1, conn):
    """Named as a table's file argument is: in the database's folder unless the application
    allowed any path on the connection."""
    with raises_datalog(f"graph '{v1[1]}' must be a file in the database's folder"):
        rows(conn, "SELECT datalog_import_v1('g2', ?)", (str(v1[1]),))
    with raises_datalog("graph '../v1.graph' must be a file in the database's folder"):
        rows(conn, "SELECT datalog_import_v1('g2', '../v1.graph')")
    rows(conn, "SELECT datalog_allow_graph_paths(1)")
    assert rows(conn, "SELECT datalog_import_v1('g2', ?)", (str(v1[1]),)) == [(9,)]
    assert_v1_graph(conn)


def test_it_commits_its_own_transaction(conn):
    conn.execute("BEGIN")
    with raises_datalog("datalog: datalog_import_v1 commits a transaction of its own: call it "
                        "outside BEGIN ... COMMIT"):
        rows(conn, "SELECT datalog_import_v1('g2', 'v1.graph')")
    conn.execute("ROLLBACK")
    assert rows(conn, "SELECT datalog_import_v1('g2', 'v1.graph')") == [(9,)]
    # Committed: another connection sees it.
    other = connect(conn.execute("PRAGMA database_list").fetchone()[2])
    assert history(other, 9) == expected_history(9)
    other.close()


def test_it_is_direct_only(conn):
    conn.execute("CREATE VIEW v AS SELECT datalog_import_v1('g2', 'v1.graph')")
    with pytest.raises(sqlite3.OperationalError, match="unsafe use of datalog_import_v1"):
        rows(conn, "SELECT * FROM v")
    assert rows(conn, "SELECT count(*) FROM g2_log") == [(0,)]


def test_a_damaged_v1_file_is_corrupt_and_leaves_the_table_empty(v1, conn):
    """A transaction's datom chunk that claims more bytes than it holds: SQLITE_CORRUPT naming
    the file and the transaction, nothing written, and the table can still take a good file."""
    data = v1[1].read_bytes()
    # [u16 length 44][eavt key of entity 42 ...]: the chunks of tx 1 and tx 6 (:name "Forty-two")
    record = b"\x00\x2c\x80\x00\x00\x00\x00\x00\x00\x2a"
    assert data.count(record) == 3
    v1[1].write_bytes(data.replace(record, b"\x00\xff" + record[2:]))
    with raises_datalog(f"datalog: graph '{v1[1]}' (first storage format) is damaged: "
                        "transaction 1: truncated log chunk") as caught:
        rows(conn, "SELECT datalog_import_v1('g2', 'v1.graph')")
    assert caught.value.sqlite_errorname == "SQLITE_CORRUPT"
    assert rows(conn, "SELECT count(*) FROM g2_log") == [(0,)]
    assert rows(conn, "SELECT count(*) FROM g2") == [(0,)]
    assert conn.in_transaction is False
    v1[1].write_bytes(data)
    assert rows(conn, "SELECT datalog_import_v1('g2', 'v1.graph')") == [(9,)]
    assert_v1_graph(conn)


def test_an_interrupt_at_any_point_leaves_nothing_or_the_whole_graph(v1):
    """A progress handler that stops the k-th step of any statement, for every k: the import
    either writes nothing, or writes the whole log (its index then built by the next reader),
    and never leaves a transaction open."""
    c = connect(":memory:")  # some 300 imports: no file to sync
    rows(c, "SELECT datalog_allow_graph_paths(1)")
    outcomes = set()
    for k in range(1, 5000):
        c.execute("DROP TABLE IF EXISTS g2")
        c.execute("CREATE VIRTUAL TABLE g2 USING datalog")
        calls = [0]

        def stop_at_k():
            calls[0] += 1
            return calls[0] == k

        c.set_progress_handler(stop_at_k, 1)
        try:
            result = rows(c, "SELECT datalog_import_v1('g2', ?)", (str(v1[1]),))
        except sqlite3.Error as e:
            result = e
        c.set_progress_handler(None, 0)
        assert not c.in_transaction, (k, result)
        logged = rows(c, "SELECT count(*) FROM g2_log")[0][0]
        if isinstance(result, sqlite3.Error):
            assert result.sqlite_errorname == "SQLITE_INTERRUPT", (k, result)
            assert logged in (0, 9), (k, result)
            outcomes.add(("interrupted", logged))
        else:
            assert result == [(9,)] and logged == 9
        if logged:
            assert_v1_graph(c)
        else:
            assert rows(c, "SELECT count(*) FROM g2 WHERE valid_at = 'any'") == [(0,)]
        if result == [(9,)] and calls[0] < k:  # the handler never fired: nothing left to stop
            break
    else:
        pytest.fail("the import never ran to its end")
    assert outcomes == {("interrupted", 0), ("interrupted", 9)}, outcomes
    c.close()
