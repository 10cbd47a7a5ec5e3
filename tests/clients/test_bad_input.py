"""Bad input is an SQLite error whose message starts 'datalog: ' and names the problem; a
failed statement writes nothing, inside a transaction or not."""
import sqlite3

import pytest

from conftest import known_bug, raises_datalog, rows

KINDS = "string, integer, float, boolean, keyword, ref, instant, uuid, bytes, nil"
TZ = "timezone offsets are not supported; use UTC (Z) timestamps only, got "

# (e, a, v, vtype, valid_from, valid_to) -> the whole message
BAD_ROWS = [
    ((":x", ":a", 1, "bogus", None, None),
     f"datalog: v: unknown vtype 'bogus'; expected one of: {KINDS}"),
    ((":x", ":a", 1, "", None, None),
     f"datalog: v: unknown vtype ''; expected one of: {KINDS}"),
    ((":x", ":a", "abc", "integer", None, None),
     "datalog: v: value 'abc' cannot be stored as integer: expected an INTEGER"),
    ((":x", ":a", 1.5, "integer", None, None),
     "datalog: v: value 1.5 cannot be stored as integer: expected an INTEGER"),
    ((":x", ":a", "1.5", "float", None, None),
     "datalog: v: value '1.5' cannot be stored as float: expected a number"),
    ((":x", ":a", 2, "boolean", None, None),
     "datalog: v: value 2 cannot be stored as boolean: expected 0, 1, 'true' or 'false'"),
    ((":x", ":a", "yes", "boolean", None, None),
     "datalog: v: value 'yes' cannot be stored as boolean: expected 0, 1, 'true' or 'false'"),
    ((":x", ":a", "bob", "keyword", None, None),
     "datalog: v: value 'bob' cannot be stored as keyword: expected TEXT ':name'"),
    ((":x", ":a", ":", "keyword", None, None),
     "datalog: v: value ':' cannot be stored as keyword: expected TEXT ':name'"),
    ((":x", ":a", ":a b", "keyword", None, None),
     "datalog: v: value ':a b' cannot be stored as keyword: expected TEXT ':name'"),
    ((":x", ":a", 1, "string", None, None),
     "datalog: v: value 1 cannot be stored as string: expected TEXT"),
    ((":x", ":a", "bob", "ref", None, None),
     "datalog: v: an entity is an integer id, a keyword (':alice') or a uuid; got 'bob'"),
    ((":x", ":a", 1.5, "ref", None, None),
     "datalog: v: an entity is an integer id, a keyword (':alice') or a uuid; got 1.5"),
    ((":x", ":a", "not-a-uuid", "uuid", None, None),
     "datalog: v: Invalid UUID 'not-a-uuid'"),
    ((":x", ":a", 5, "uuid", None, None),
     "datalog: v: value 5 cannot be stored as uuid: expected TEXT 8-4-4-4-12"),
    ((":x", ":a", 1, "nil", None, None),
     "datalog: v: value 1 cannot be stored as nil: expected NULL"),
    ((":x", ":a", 1, "bytes", None, None),
     "datalog: v: value 1 cannot be stored as bytes: expected a BLOB"),
    ((":x", ":a", "2020-13-45", "instant", None, None),
     "datalog: v: an instant value: invalid date '2020-13-45'"),
    ((":x", ":a", "2020-06-01T00:00:00+02:00", "instant", None, None),
     f"datalog: v: an instant value: {TZ}'2020-06-01T00:00:00+02:00'"),
    ((":x", ":a", "2020-06-01T10:00:00-05:00", "instant", None, None),
     f"datalog: v: an instant value: {TZ}'2020-06-01T10:00:00-05:00'"),
    ((":x", ":a", "2020-06-01T00:00:00", "instant", None, None),
     "datalog: v: an instant value: invalid UTC timestamp '2020-06-01T00:00:00'"),
    ((":x", ":a", 1.5, "instant", None, None),
     "datalog: v: an instant value must be an ISO 8601 UTC text or integer milliseconds, "
     "got 1.5"),
    ((":x", ":a", None, "float", None, None),
     "datalog: v: value NULL cannot be stored as float: expected a number"),
    # the attribute
    ((":x", "a", 1, None, None, None),
     "datalog: attribute must be a keyword (':name'), got 'a'"),
    ((":x", None, 1, None, None, None),
     "datalog: attribute must be a keyword (':name'), got NULL"),
    ((":x", 5, 1, None, None, None),
     "datalog: attribute must be a keyword (':name'), got '5'"),
    ((":x", ":", 1, None, None, None),
     "datalog: attribute must be a keyword (':name'), got ':'"),
    # the entity
    ((None, ":a", 1, None, None, None), "datalog: e (the entity) is required"),
    (("alice", ":a", 1, None, None, None),
     "datalog: e: an entity is an integer id, a keyword (':alice') or a uuid; got 'alice'"),
    (("", ":a", 1, None, None, None),
     "datalog: e: an entity is an integer id, a keyword (':alice') or a uuid; got ''"),
    ((1.5, ":a", 1, None, None, None),
     "datalog: e: an entity is an integer id, a keyword (':alice') or a uuid; got 1.5"),
    ((b"\x01", ":a", 1, None, None, None),
     "datalog: e: an entity is an integer id, a keyword (':alice') or a uuid; got a 1-byte blob"),
    # valid time
    ((":x", ":a", 1, None, "2020-01-01T00:00:00+01:00", None),
     f"datalog: valid_from: {TZ}'2020-01-01T00:00:00+01:00'"),
    ((":x", ":a", 1, None, None, "yesterday"),
     "datalog: valid_to: invalid UTC timestamp 'yesterday'"),
    ((":x", ":a", 1, None, "2020-02-30", None),
     "datalog: valid_from: invalid date '2020-02-30'"),
    ((":x", ":a", 1, None, 1.5, None),
     "datalog: valid_from must be an ISO 8601 UTC text or integer milliseconds, got 1.5"),
    ((":x", ":a", 1, None, None, b"\x00"),
     "datalog: valid_to must be an ISO 8601 UTC text or integer milliseconds, got a 1-byte blob"),
]

INSERT = "INSERT INTO g(e, a, v, vtype, valid_from, valid_to) VALUES (?, ?, ?, ?, ?, ?)"


@pytest.mark.parametrize("row, message", BAD_ROWS, ids=[m for _, m in BAD_ROWS])
def test_bad_row_is_refused(db, row, message):
    with pytest.raises(sqlite3.OperationalError) as caught:
        db.execute(INSERT, row)
    assert str(caught.value) == message
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any'") == [(0,)]


@pytest.mark.parametrize("row, message", BAD_ROWS[::4], ids=[m for _, m in BAD_ROWS[::4]])
def test_failed_statement_in_a_transaction_keeps_earlier_writes(db, row, message):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':before', 1)")
    with raises_datalog(message, sqlite3.OperationalError):
        # a multi-row statement whose last row is bad: its first rows must go too
        db.execute(
            "INSERT INTO g(e, a, v, vtype, valid_from, valid_to) "
            "VALUES (':x', ':same-statement', 1, NULL, NULL, NULL), "
            "       (':y', ':same-statement', 2, NULL, NULL, NULL), "
            "       (?, ?, ?, ?, ?, ?)", row)
    assert db.in_transaction
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':after', 2)")
    # reads inside the transaction see the surviving writes only
    assert rows(db, "SELECT a, v FROM g ORDER BY a") == [(":after", 2), (":before", 1)]
    db.execute("COMMIT")
    assert rows(db, "SELECT a, v, tx FROM g ORDER BY a") == [(":after", 2, 1), (":before", 1, 1)]
    # the failed statement left no trace in history either
    assert rows(db, "SELECT count(*) FROM g WHERE a = ':same-statement' AND valid_at = 'any'") \
        == [(0,)]


def test_failed_update_in_a_transaction_keeps_the_old_value(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1), (':y', ':n', 2)")
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':z', ':n', 3)")
    with raises_datalog("datalog: v: value 'abc' cannot be stored as integer",
                        sqlite3.OperationalError):
        # the first row updates fine (:x, 1 -> 'abc' fails) in e order; make the second fail
        db.execute("UPDATE g SET v = CASE WHEN e = ':x' THEN 10 ELSE 'abc' END, "
                   "vtype = CASE WHEN e = ':x' THEN NULL ELSE 'integer' END WHERE a = ':n'")
    assert rows(db, "SELECT e, v FROM g ORDER BY e") == [(":x", 1), (":y", 2), (":z", 3)]
    db.execute("COMMIT")
    assert rows(db, "SELECT e, v FROM g ORDER BY e") == [(":x", 1), (":y", 2), (":z", 3)]
    # no retraction of :x survived the failed statement
    assert rows(db, "SELECT e, v FROM g WHERE as_of = 2 ORDER BY e") == [
        (":x", 1), (":y", 2), (":z", 3)]


def test_failed_multi_row_insert_in_autocommit_writes_nothing(db):
    with raises_datalog("datalog: attribute must be a keyword (':name'), got 'bad'",
                        sqlite3.OperationalError):
        db.execute("INSERT INTO g(e, a, v) VALUES (':y', ':a', 2), (':y', ':a', 3), "
                   "(':y', 'bad', 4)")
    assert not db.in_transaction
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any'") == [(0,)]
    # and consumed no transaction counter
    db.execute("INSERT INTO g(e, a, v) VALUES (':z', ':a', 1)")
    assert rows(db, "SELECT tx FROM g") == [(1,)]


def test_failed_insert_select_in_autocommit_writes_nothing(db):
    with raises_datalog("datalog: v: value 'x500' cannot be stored as integer",
                        sqlite3.OperationalError):
        db.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
                      INSERT INTO g(e, a, v, vtype)
                      SELECT i, ':n', CASE WHEN i = 500 THEN 'x500' ELSE i END, 'integer' FROM n""")
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any'") == [(0,)]


def test_new_idents_of_a_failed_statement_are_not_kept(db):
    with pytest.raises(sqlite3.OperationalError):
        db.execute("INSERT INTO g(e, a, v) VALUES (':ghost', ':ghost-attr', 1), (':y', 'bad', 2)")
    # A read of the unknown ident finds nothing (and must not fail).
    assert rows(db, "SELECT count(*) FROM g WHERE e = ':ghost'") == [(0,)]
    assert rows(db, "SELECT count(*) FROM g WHERE a = ':ghost-attr'") == [(0,)]


@pytest.mark.parametrize("where, message", [
    ("as_of = -1", "datalog: :as-of counter must be non-negative"),
    ("as_of = 1.5",
     "datalog: as_of must be a transaction counter (INTEGER) or an ISO 8601 UTC time (TEXT)"),
    ("as_of = x'00'",
     "datalog: as_of must be a transaction counter (INTEGER) or an ISO 8601 UTC time (TEXT)"),
    ("as_of = '2020-01-01T00:00:00+01:00'",
     f"datalog: as_of: {TZ}'2020-01-01T00:00:00+01:00'"),
    ("as_of = 'last week'", "datalog: as_of: invalid UTC timestamp 'last week'"),
    ("valid_at = 'bogus'",
     "datalog: valid_at: invalid UTC timestamp 'bogus' (or 'any' for every valid time)"),
    ("valid_at = '2020-06-01T00:00:00+00:00'",
     f"datalog: valid_at: {TZ}'2020-06-01T00:00:00+00:00' (or 'any' for every valid time)"),
    ("valid_at = 1.5",
     "datalog: valid_at must be an ISO 8601 UTC text or integer milliseconds, got 1.5 "
     "(or 'any' for every valid time)"),
])
def test_bad_time_view_is_refused(db, where, message):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':a', 1)")
    with pytest.raises(sqlite3.OperationalError) as caught:
        db.execute(f"SELECT * FROM g WHERE {where}").fetchall()
    assert str(caught.value) == message
    # also through an index
    with raises_datalog(message, sqlite3.OperationalError):
        db.execute(f"SELECT * FROM g WHERE e = ':x' AND {where}").fetchall()


def test_failed_select_in_a_transaction_keeps_the_transaction(db):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':w', ':a', 1)")
    with raises_datalog("datalog: :as-of counter must be non-negative", sqlite3.OperationalError):
        db.execute("SELECT * FROM g WHERE as_of = -1").fetchall()
    db.execute("INSERT INTO g(e, a, v) VALUES (':w', ':a', 2)")
    db.execute("COMMIT")
    assert rows(db, "SELECT v, tx FROM g ORDER BY v") == [(1, 1), (2, 1)]


def test_datom_column_is_read_only(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':a', 1)")
    # Writing the hidden primary key is how SQLite asks to move a row: refused.
    with pytest.raises(sqlite3.Error, match="^datalog: "):
        db.execute("UPDATE g SET datom = x'00'")
    assert rows(db, "SELECT e, a, v FROM g") == [(":x", ":a", 1)]


def test_inverted_valid_time_window_is_kept_as_minigraf_does(db):
    """LANGUAGE.md §4: valid-to before valid-from is accepted; such a fact is valid at no
    instant, so only valid_at = 'any' shows it."""
    db.execute("INSERT INTO g(e, a, v, valid_from, valid_to) "
               "VALUES (':x', ':a', 1, '2021-01-01', '2020-01-01')")
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = '2020-06-01'") == [(0,)]
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any'") == [(1,)]
