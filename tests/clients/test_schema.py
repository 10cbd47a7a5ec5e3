"""Schema (engine/schema.h) through SQL transactions: failed INSERTs undo only themselves,
ROLLBACK and ROLLBACK TO forget schema facts written since, and the schema cached for a write
transaction follows every write path."""
import sqlite3

import pytest

from conftest import raises_datalog, rows


def exec_datalog(conn, script):
    return conn.execute("SELECT datalog_exec('g', ?)", (script,)).fetchone()[0]


def ages(conn, entity=":ann"):
    return [v for (v,) in rows(conn, "SELECT v FROM g WHERE e = ? AND a = ':person/age' ORDER BY v",
                               (entity,))]


@pytest.fixture
def schema_db(db):
    exec_datalog(db, """(transact [[:person/age :db/cardinality :db.cardinality/one]
                                   [:person/age :db/valueType :db.type/long]
                                   [:person/ssn :db/unique :db.unique/value]])""")
    return db


def test_failed_insert_inside_a_transaction_undoes_only_itself(schema_db):
    db = schema_db
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 40)")
    with raises_datalog("Wrong type for attribute :person/age"):
        db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 'forty')")
    db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 41)")
    db.execute("COMMIT")
    assert ages(db) == [41]
    assert rows(db, "SELECT v FROM g WHERE e = ':ann' AND a = ':person/age' AND as_of = 1") == []


def test_failed_multi_row_insert_writes_none_of_its_rows(schema_db):
    db = schema_db
    db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/ssn', '111')")
    with raises_datalog('Unique conflict: :person/ssn value "111" is already held by :ann'):
        db.execute("INSERT INTO g(e, a, v) VALUES (':bob', ':person/age', 30), (':bob', ':person/ssn', '111')")
    assert ages(db, ":bob") == []
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':cid', ':person/age', 50)")
    with raises_datalog("Unique conflict"):
        db.execute("INSERT INTO g(e, a, v) VALUES (':cid', ':person/age', 51), (':cid', ':person/ssn', '111')")
    db.execute("COMMIT")
    assert ages(db, ":cid") == [50]


def test_rolled_back_schema_no_longer_applies(db):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':person/age', ':db/cardinality', ':db.cardinality/one', 'keyword')")
    db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 1), (':ann', ':person/age', 2)")
    assert ages(db) == [2]
    db.execute("ROLLBACK")
    db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 1), (':ann', ':person/age', 2)")
    assert ages(db) == [1, 2]  # no schema: multi-valued, as in Minigraf


def test_rollback_to_savepoint_forgets_schema_written_since(db):
    db.execute("BEGIN")
    db.execute("SAVEPOINT s")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':person/age', ':db/valueType', ':db.type/long', 'keyword')")
    with raises_datalog("expected :db.type/long"):
        db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 'x')")
    db.execute("ROLLBACK TO s")
    db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 'x')")
    db.execute("COMMIT")
    assert ages(db) == ["x"]


def test_schema_from_datalog_applies_to_later_inserts_in_the_transaction(db):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 1)")  # caches "no schema"
    exec_datalog(db, "(transact [[:person/age :db/cardinality :db.cardinality/one]])")
    db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 2)")
    db.execute("COMMIT")
    assert ages(db) == [2]


def test_failed_transact_inside_a_transaction_keeps_earlier_writes(schema_db):
    db = schema_db
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 40)")
    with raises_datalog("Wrong type for attribute :person/age"):
        exec_datalog(db, '(transact [[:ann :person/age 41] [:bob :person/age "x"]])')
    db.execute("COMMIT")
    assert ages(db) == [40]
    assert ages(db, ":bob") == []


def test_upsert_through_datalog_exec_joins_the_sql_transaction(db):
    exec_datalog(db, "(transact [[:person/email :db/unique :db.unique/identity]])")
    db.execute("INSERT INTO g(e, a, v) VALUES (':dora', ':person/email', 'dora@x')")
    db.execute("BEGIN")
    exec_datalog(db, '(transact [{:person/email "dora@x" :person/name "Dora"}])')
    db.execute("ROLLBACK")
    assert rows(db, "SELECT count(*) FROM g WHERE a = ':person/name'") == [(0,)]
    exec_datalog(db, '(transact [{:person/email "dora@x" :person/name "Dora"}])')
    assert rows(db, "SELECT e FROM g WHERE a = ':person/name'") == [(":dora",)]


def test_schema_errors_are_sqlite_errors_not_crashes(schema_db):
    with pytest.raises(sqlite3.OperationalError):
        schema_db.execute("INSERT INTO g(e, a, v) VALUES (':ann', ':person/age', 1.5)")
