"""LANGUAGE.md §18 mapped onto SQL transactions (README "Datalog reference: Transactions"):
writes made through SQL and through datalog_exec in one committed SQLite transaction share one
transaction counter; a rolled back transaction consumes none and takes its rules with it;
ROLLBACK TO a savepoint undoes writes and rules since the savepoint."""
import pytest

from conftest import connect, raises_datalog, rows


def exec_script(conn, script, graph="g"):
    ((out,),) = rows(conn, "SELECT datalog_exec(?, ?)", (graph, script))
    return out.splitlines()


def query(conn, text, *args):
    return sorted(rows(conn, "SELECT c1, c2 FROM datalog_q('g', ?" + ", ?" * len(args) + ")",
                       (text, *args)))


def rules_text(conn):
    ((text,),) = rows(conn, "SELECT datalog_rules('g')")
    return text


def test_a_committed_transaction_shares_one_counter_across_sql_and_datalog(db):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':a', ':n', 1), (':b', ':n', 2)")
    assert exec_script(db, "(transact [[:c :n 3]]) (retract [[:b :n 2]]) (transact [[:d :n 4]])") == [
        "transacted: tx 1, 1 datom",
        "retracted: tx 1, 1 datom",
        "transacted: tx 1, 1 datom",
    ]
    db.execute("UPDATE g SET v = 10 WHERE e = ':a'")
    db.execute("DELETE FROM g WHERE e = ':c'")
    db.execute("COMMIT")
    assert rows(db, "SELECT e, v, tx FROM g ORDER BY e") == [(":a", 10, 1), (":d", 4, 1)]
    assert query(db, "(query [:find ?e ?t :any-valid-time :where [?e :n _] [?e :db/tx-count ?t]])") == [
        (":a", 1), (":d", 1)]
    # :as-of sees the whole transaction or nothing of it.
    assert query(db, "(query [:find ?e ?v :as-of 0 :any-valid-time :where [?e :n ?v]])") == []
    assert query(db, "(query [:find ?e ?v :as-of 1 :where [?e :n ?v]])") == [(":a", 10), (":d", 4)]
    # The next transaction takes the next counter.
    assert exec_script(db, "(transact [[:e :n 5]])") == ["transacted: tx 2, 1 datom"]


def test_writes_of_one_transaction_apply_in_order(db):
    db.execute("BEGIN")
    exec_script(db, "(transact [[:x :n 1]]) (retract [[:x :n 1]])")
    exec_script(db, "(retract [[:y :n 2]]) (transact [[:y :n 2]])")
    db.execute("COMMIT")
    assert rows(db, "SELECT e, v, tx FROM g") == [(":y", 2, 1)]


def test_autocommit_gives_each_command_its_own_counter(db):
    assert exec_script(db, "(transact [[:a :n 1]]) (retract [[:a :n 1]]) (transact [[:b :n 2]])") == [
        "transacted: tx 1, 1 datom",
        "retracted: tx 2, 1 datom",
        "transacted: tx 3, 1 datom",
    ]
    db.execute("INSERT INTO g(e, a, v) VALUES (':c', ':n', 3)")
    assert rows(db, "SELECT e, tx FROM g ORDER BY e") == [(":b", 3), (":c", 4)]
    assert query(db, "(query [:find ?e ?v :as-of 1 :where [?e :n ?v]])") == [(":a", 1)]


def test_a_rolled_back_transaction_consumes_no_counter(db):
    exec_script(db, "(transact [[:a :n 1]])")
    db.execute("BEGIN")
    exec_script(db, "(transact [[:b :n 2]]) (retract [[:a :n 1]])")
    db.execute("INSERT INTO g(e, a, v) VALUES (':c', ':n', 3)")
    assert rows(db, "SELECT e, tx FROM g ORDER BY e") == [(":b", 2), (":c", 2)]
    db.execute("ROLLBACK")
    assert rows(db, "SELECT e, v, tx FROM g WHERE valid_at = 'any' ORDER BY e") == [(":a", 1, 1)]
    assert exec_script(db, "(transact [[:d :n 4]])") == ["transacted: tx 2, 1 datom"]
    db.execute("INSERT INTO g(e, a, v) VALUES (':e', ':n', 5)")
    assert rows(db, "SELECT e, tx FROM g ORDER BY e") == [(":a", 1), (":d", 2), (":e", 3)]


def test_a_rule_defined_in_a_rolled_back_transaction_is_gone(db):
    exec_script(db, "(transact [[:a :n 1]])")
    db.execute("BEGIN")
    assert exec_script(db, "(rule [(numbered ?e) [?e :n _]])") == ["rule: numbered defined"]
    # Inside the transaction the rule exists and runs.
    assert "numbered" in rules_text(db)
    assert query(db, "(query [:find ?e :where (numbered ?e)])") == [(":a", None)]
    db.execute("ROLLBACK")
    assert rules_text(db) == ""
    with raises_datalog("unknown rule 'numbered'"):
        query(db, "(query [:find ?e :where (numbered ?e)])")
    # Nor did defining it use a counter.
    assert exec_script(db, "(transact [[:b :n 2]])") == ["transacted: tx 2, 1 datom"]


def test_a_rule_dropped_in_a_rolled_back_transaction_comes_back(db):
    exec_script(db, "(rule [(numbered ?e) [?e :n _]])")
    db.execute("BEGIN")
    assert rows(db, "SELECT datalog_drop_rule('g', 'numbered')") == [(1,)]
    assert rules_text(db) == ""
    db.execute("ROLLBACK")
    assert rules_text(db) == "(rule [(numbered ?e) [?e :n _]])"


def test_a_rule_defined_in_a_committed_transaction_persists(db_path, db):
    db.execute("BEGIN")
    exec_script(db, "(transact [[:a :n 1]]) (rule [(numbered ?e) [?e :n _]])")
    db.execute("COMMIT")
    other = connect(db_path)
    try:
        other.execute("CREATE VIRTUAL TABLE IF NOT EXISTS g USING datalog")
        assert rows(other, "SELECT datalog_rules('g')") == [("(rule [(numbered ?e) [?e :n _]])",)]
        assert query(other, "(query [:find ?e :where (numbered ?e)])") == [(":a", None)]
    finally:
        other.close()


def test_queries_see_rules_another_connection_drops_and_redefines(db_path, db):
    # Parsed rules are kept per committed state: a commit elsewhere must replace them.
    exec_script(db, "(transact [[:a :n 1] [:b :n 2]]) (rule [(picked ?e) [?e :n 1]])")
    assert query(db, "(query [:find ?e :where (picked ?e)])") == [(":a", None)]
    other = connect(db_path)
    try:
        other.execute("CREATE VIRTUAL TABLE IF NOT EXISTS g USING datalog")
        assert rows(other, "SELECT datalog_drop_rule('g', 'picked')") == [(1,)]
        with raises_datalog("unknown rule 'picked'"):
            query(db, "(query [:find ?e :where (picked ?e)])")
        exec_script(other, "(rule [(picked ?e) [?e :n 2]])")
        assert query(db, "(query [:find ?e :where (picked ?e)])") == [(":b", None)]
        db.execute("BEGIN")
        exec_script(db, "(rule [(picked ?e) [?e :n 1]])")
        assert sorted(query(db, "(query [:find ?e :where (picked ?e)])")) == [(":a", None), (":b", None)]
        db.execute("ROLLBACK")
        assert query(db, "(query [:find ?e :where (picked ?e)])") == [(":b", None)]
    finally:
        other.close()


def test_rollback_to_a_savepoint_undoes_writes_and_rules_since_it(db):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':kept', ':n', 1)")
    exec_script(db, "(rule [(kept ?e) [?e :n 1]])")
    db.execute("SAVEPOINT s")
    db.execute("INSERT INTO g(e, a, v) VALUES (':undone', ':n', 2)")
    exec_script(db, "(transact [[:undone-too :n 3]]) (retract [[:kept :n 1]]) (rule [(undone ?e) [?e :n _]])")
    assert rows(db, "SELECT e FROM g ORDER BY e") == [(":undone",), (":undone-too",)]
    db.execute("ROLLBACK TO s")
    assert rows(db, "SELECT e FROM g ORDER BY e") == [(":kept",)]
    assert rules_text(db) == "(rule [(kept ?e) [?e :n 1]])"
    # Writes after ROLLBACK TO join the same transaction.
    exec_script(db, "(transact [[:after :n 4]])")
    db.execute("RELEASE s")
    db.execute("COMMIT")
    assert rows(db, "SELECT e, tx FROM g ORDER BY e") == [(":after", 1), (":kept", 1)]
    assert rules_text(db) == "(rule [(kept ?e) [?e :n 1]])"
    assert exec_script(db, "(transact [[:next :n 5]])") == ["transacted: tx 2, 1 datom"]


def test_a_failing_command_inside_a_transaction_undoes_only_itself(db):
    db.execute("BEGIN")
    exec_script(db, "(transact [[:a :n 1]])")
    with raises_datalog("Invalid entity"):
        exec_script(db, '(transact [[:b :n 2] ["not an entity" :n 3]])')
    exec_script(db, "(transact [[:c :n 4]])")
    db.execute("COMMIT")
    assert rows(db, "SELECT e, tx FROM g ORDER BY e") == [(":a", 1), (":c", 1)]


@pytest.mark.parametrize("end", ["COMMIT", "ROLLBACK"])
def test_a_transaction_that_writes_nothing_consumes_no_counter(db, end):
    exec_script(db, "(transact [[:a :n 1]])")
    db.execute("BEGIN")
    rows(db, "SELECT datalog_exec('g', '(query [:find ?e :where [?e :n _]])')")
    db.execute(end)
    assert exec_script(db, "(transact [[:b :n 2]])") == ["transacted: tx 2, 1 datom"]
