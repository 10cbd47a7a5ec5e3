"""The table's shape and how it behaves inside ordinary SQL: columns, hidden columns, views,
triggers, renames, joins that feed the time-travel arguments."""
import sqlite3


from conftest import raises_datalog, rows


def test_columns(db):
    info = rows(db, "SELECT name, type, pk, hidden FROM pragma_table_xinfo('g') ORDER BY cid")
    assert info == [
        ("e", "", 0, 0), ("a", "", 0, 0), ("v", "", 0, 0), ("vtype", "TEXT", 0, 0),
        ("tx", "INTEGER", 0, 0), ("tx_time", "TEXT", 0, 0), ("valid_from", "TEXT", 0, 0),
        ("valid_to", "TEXT", 0, 0), ("as_of", "", 0, 1), ("valid_at", "", 0, 1),
        ("datom", "BLOB", 1, 1)]
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    cursor = db.execute("SELECT * FROM g")
    assert [d[0] for d in cursor.description] == [
        "e", "a", "v", "vtype", "tx", "tx_time", "valid_from", "valid_to"]
    (row,) = cursor.fetchall()
    assert row[:5] == (":x", ":n", 1, "integer", 1) and row[7] is None


def test_hidden_columns_show_the_view_asked_for(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(db, "SELECT as_of, valid_at FROM g") == [(None, None)]
    assert rows(db, "SELECT as_of, valid_at FROM g WHERE as_of = 1 AND valid_at = 'any'") == [
        (1, "any")]
    ((key,),) = rows(db, "SELECT datom FROM g")
    assert isinstance(key, bytes) and len(key) > 16


def test_query_table_arguments_read_back_as_given(db):
    """A query table's argument columns give back the values the statement passed, type and
    bytes, after the query ran (SQLite's own argument values end with xFilter)."""
    db.execute("""CREATE VIRTUAL TABLE q USING datalog_query(g,
        '(query [:find ?x :in ?in :where [(identity ?in) ?x]])')""")
    blob = bytes(range(256)) * 3
    long_text = "é" * 500
    for given in [7, -2**63, 2.5, ":kw", long_text, "", blob]:
        got = rows(db, 'SELECT x, typeof("in"), "in" FROM q(?)', (given,))
        assert len(got) == 1
        x, kind, back = got[0]
        assert back == given and type(back) is type(given)
        assert kind == {int: "integer", float: "real", str: "text", bytes: "blob"}[type(given)]
    # Two calls in one statement (a join): each row shows its own argument.
    db.execute("CREATE TEMP TABLE ks(k)")
    db.executemany("INSERT INTO ks VALUES (?)", [(1,), ("two",), (3.5,)])
    assert rows(db, 'SELECT ks.k, q."in" FROM ks JOIN q ON q."in" = ks.k ORDER BY ks.rowid') == [
        (1, 1), ("two", "two"), (3.5, 3.5)]


def test_table_valued_function_syntax(db):
    """The hidden columns are the table's arguments, in order: g(as_of, valid_at)."""
    db.execute("INSERT INTO g(e, a, v, valid_from, valid_to) "
               "VALUES (':x', ':job', 'Acme', '2019-01-01', '2022-07-01')")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(db, "SELECT v FROM g(1, '2020-06-01')") == [("Acme",)]
    assert rows(db, "SELECT v FROM g(2, 'any') ORDER BY tx") == [("Acme",), (1,)]
    assert rows(db, "SELECT v FROM g(1)") == []  # as_of 1, valid now: the job has ended


def test_as_of_from_a_join(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)")
    db.execute("DELETE FROM g WHERE v = 1")
    db.execute("CREATE TEMP TABLE txs(n INTEGER)")
    db.executemany("INSERT INTO txs VALUES (?)", [(0,), (1,), (2,), (3,)])
    assert rows(db, "SELECT t.n, count(g.e) FROM txs AS t LEFT JOIN g ON g.as_of = t.n "
                    "GROUP BY t.n ORDER BY t.n") == [(0, 0), (1, 1), (2, 2), (3, 1)]
    assert rows(db, "SELECT t.n, (SELECT group_concat(v) FROM g WHERE as_of = t.n) FROM txs t "
                    "ORDER BY t.n") == [(0, None), (1, "1"), (2, "1,2"), (3, "2")]
    assert rows(db, "SELECT count(*) FROM g WHERE as_of IN (1, 2)") == [(3,)]


def test_update_of_entity_and_attribute(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':y', ':n', 3)")
    db.execute("UPDATE g SET e = ':z', a = ':m' WHERE v = 3")
    assert rows(db, "SELECT e, a, v, tx FROM g") == [(":z", ":m", 3, 2)]
    assert rows(db, "SELECT e, a, v, tx FROM g WHERE as_of = 1") == [(":y", ":n", 3, 1)]


def test_update_to_a_bad_value_changes_nothing(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':y', ':n', 3)")
    with raises_datalog("datalog: attribute must be a keyword (':name'), got 'm'",
                        sqlite3.OperationalError):
        db.execute("UPDATE g SET a = 'm' WHERE v = 3")
    assert rows(db, "SELECT e, a, v, tx FROM g WHERE valid_at = 'any'") == [(":y", ":n", 3, 1)]


def test_not_usable_from_views_or_triggers(db):
    """The table names a file (DIRECTONLY): schema objects cannot reach it."""
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("CREATE VIEW facts AS SELECT e, v FROM g")
    with raises_datalog('unsafe use of virtual table "g"', sqlite3.OperationalError):
        db.execute("SELECT * FROM facts").fetchall()
    db.execute("DROP VIEW facts")
    db.execute("CREATE TABLE t(x)")
    with raises_datalog('unsafe use of virtual table "g"', sqlite3.OperationalError):
        db.execute("CREATE TRIGGER tr AFTER INSERT ON t BEGIN "
                   "INSERT INTO g(e, a, v) VALUES (':t', ':n', new.x); END")
        db.execute("INSERT INTO t VALUES (9)")
    assert rows(db, "SELECT count(*) FROM g WHERE e = ':t'") == [(0,)]


def test_rename(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("ALTER TABLE g RENAME TO h")
    assert rows(db, "SELECT e, v FROM h") == [(":x", 1)]
    db.execute("INSERT INTO h(e, a, v) VALUES (':x', ':n', 2)")
    assert rows(db, "SELECT v, tx FROM h ORDER BY v") == [(1, 1), (2, 2)]


def test_aggregates_group_by_and_window_functions(db):
    db.executemany("INSERT INTO g(e, a, v) VALUES (?, ':age', ?)",
                   [(":a", 30), (":b", 40), (":c", 50)])
    assert rows(db, "SELECT a, count(*), avg(v), max(v) FROM g GROUP BY a") == [
        (":age", 3, 40.0, 50)]
    assert rows(db, "SELECT e, rank() OVER (ORDER BY v DESC) FROM g ORDER BY e") == [
        (":a", 3), (":b", 2), (":c", 1)]


def test_insert_or_ignore_still_reports_bad_rows(db):
    # The table does not claim constraint support: conflict clauses do not hide its errors.
    with raises_datalog("datalog: e (the entity) is required", sqlite3.OperationalError):
        db.execute("INSERT OR IGNORE INTO g(e, a, v) VALUES (NULL, ':n', 1)")


def test_a_query_table_called_again_and_again_answers_each_call_alone(db):
    """A query table keeps its last cursor, and the stream inside it, for the next call (no
    allocation per call): each call must still see only its own arguments, limits and rows,
    whether the call before it streamed, was evaluated in full, stopped early or failed."""
    db.execute("SELECT datalog_exec('g', '(transact [[:a :n 1] [:b :n 2] [:c :n 3] [:a :m 10]])')")
    db.execute("CREATE VIRTUAL TABLE temp.point USING datalog_query(g, '(query [:find ?v :where [$e :n ?v]])')")
    db.execute("CREATE VIRTUAL TABLE temp.small USING datalog_query(g, "
               "'(query [:find ?e ?v :where [?e :n ?v] [(< ?v $top)]])')")
    db.execute("CREATE VIRTUAL TABLE temp.few USING datalog_query(g, "
               "'(query [:find ?e :max-results 2 :where [?e :n _]])')")
    for _ in range(3):
        assert rows(db, "SELECT * FROM point(':a')") == [(1,)]
        assert rows(db, "SELECT * FROM point(':nobody')") == []
        assert rows(db, "SELECT * FROM point(':c')") == [(3,)]
        assert rows(db, "SELECT e, v FROM small(3) ORDER BY v") == [(":a", 1), (":b", 2)]
        assert rows(db, "SELECT e, v FROM small(2)") == [(":a", 1)]
        assert rows(db, "SELECT e FROM small(10) LIMIT 1") == [(":a",)]  # stopped early
        with raises_datalog("Max query results (2) exceeded"):
            rows(db, "SELECT * FROM few")
        assert rows(db, "SELECT * FROM few WHERE e = ':b'") == [(":b",)]
        assert rows(db, "SELECT e FROM small(3) ORDER BY e") == [(":a",), (":b",)]
        # Ad hoc queries of one cursor's table, each with slots of its own name.
        assert rows(db, "SELECT c1 FROM datalog_q('g', '(query [:find ?v :where [$e :n ?v]])', ':b')") == [(2,)]
        assert rows(db, "SELECT c1 FROM datalog_q('g', '(query [:find ?v :where [$x :m ?v]])', ':a')") == [(10,)]
        assert rows(db, "SELECT c1 FROM datalog_q('g', '(query [:find ?v :where [$x :n ?v]])', ':c')") == [(3,)]
    # Two cursors of one table open at once (a self-join): each keeps its own stream.
    assert rows(db, "SELECT x.v, y.v FROM point(':a') x, point(':b') y") == [(1, 2)]
    assert rows(db, "SELECT x.v, y.v FROM small(3) x JOIN small(3) y ON y.v = x.v + 1") == [(1, 2)]


def test_a_joined_query_table_answers_every_call_after_its_plan_is_kept(db):
    """A query table keeps the planner's choices from call to call (engine/eval/step_memo.h):
    each call still answers for its own arguments, for the graph as committed at that call, and
    inside a transaction for the transaction's own writes."""
    db.execute("SELECT datalog_exec('g', '(transact [[:a :next :b] [:b :next :c] [:c :val 3]"
               " [:x :next :y] [:y :next :z] [:z :val 26] [:z :val 27]])')")
    db.execute("CREATE VIRTUAL TABLE temp.two_on USING datalog_query(g, "
               "'(query [:find ?v :where [$e :next ?m] [?m :next ?end] [?end :val ?v] [(> ?v 2)]])')")
    db.execute("CREATE VIRTUAL TABLE temp.below USING datalog_query(g, "
               "'(query [:find ?v :where [$e :next ?m] [?m :next ?end] [?end :val ?v] [(< ?v $top)]])')")
    for _ in range(2):
        assert rows(db, "SELECT v FROM two_on(':a')") == [(3,)]
        assert rows(db, "SELECT v FROM two_on(':x') ORDER BY v") == [(26,), (27,)]
        assert rows(db, "SELECT v FROM two_on(':nobody')") == []
        assert rows(db, "SELECT v FROM two_on(':c')") == []
        assert rows(db, "SELECT v FROM below(':x', 27)") == [(26,)]
        assert rows(db, "SELECT v FROM below(':x', 28) ORDER BY v") == [(26,), (27,)]
        assert rows(db, "SELECT v FROM below(':a', 3)") == []
    # A new committed state, and an entity the last calls did not know.
    db.execute("SELECT datalog_exec('g', '(transact [[:c :next :d] [:d :next :e] [:e :val 5]])')")
    assert rows(db, "SELECT v FROM two_on(':c')") == [(5,)]
    assert rows(db, "SELECT v FROM two_on(':a')") == [(3,)]
    # Inside a transaction the table reads its writes; after the rollback, it does not.
    db.execute("BEGIN")
    db.execute("SELECT datalog_exec('g', '(transact [[:e :next :f] [:f :next :h] [:h :val 9]])')")
    assert rows(db, "SELECT v FROM two_on(':e')") == [(9,)]
    assert rows(db, "SELECT v FROM two_on(':a')") == [(3,)]
    db.execute("ROLLBACK")
    assert rows(db, "SELECT v FROM two_on(':e')") == []
    assert rows(db, "SELECT v FROM two_on(':c')") == [(5,)]
    # A value pushed down from SQL's WHERE binds a variable before the body runs: a call with it
    # and a call without it start from other variables, so they must not share choices.
    db.execute("SELECT datalog_exec('g', '(transact [[:a :name \"Ann\"] [:b :name \"Bo\"] [:a :tag 1] [:b :tag 2]])')")
    db.execute("CREATE VIRTUAL TABLE temp.shout USING datalog_query(g, "
               "'(query [:find ?n ?loud :where [?p :name ?n] [?p :tag _] [(str ?n \"!\") ?loud]])')")
    for _ in range(2):
        assert rows(db, "SELECT loud FROM shout WHERE n = 'Bo'") == [("Bo!",)]
        assert rows(db, "SELECT n, loud FROM shout ORDER BY n") == [("Ann", "Ann!"), ("Bo", "Bo!")]
    # datalog_q keeps the choices of each query text the same way.
    query = "(query [:find ?v :where [$e :next ?m] [?m :next ?end] [?end :val ?v]])"
    for who, expected in [(":a", [(3,)]), (":x", [(26,), (27,)]), (":zz", []), (":c", [(5,)]), (":a", [(3,)])]:
        assert rows(db, "SELECT c1 FROM datalog_q('g', ?, ?) ORDER BY c1", (query, who)) == expected
