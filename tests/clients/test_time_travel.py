"""Transaction time (as_of) and valid time (valid_at): LANGUAGE.md §5 and §12,
lmdb_store/visibility.h."""
import datetime
import sqlite3
import time

import pytest

from conftest import rows


def iso_to_ms(text):
    t = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc)
    return round(t.timestamp() * 1000)


def ms_to_iso(ms):
    t = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03}Z"


def state(conn, where="1", params=()):
    return rows(conn, f"SELECT e, a, v FROM g WHERE {where} ORDER BY e, a, v", params)


@pytest.fixture
def history(db):
    """tx1 age 30, tx2 name, tx3 age 30 -> 31 (UPDATE), tx4 name retracted (DELETE)."""
    db.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':age', 30)")
    time.sleep(0.005)
    db.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':name', 'Alice')")
    time.sleep(0.005)
    db.execute("UPDATE g SET v = 31 WHERE e = ':alice' AND a = ':age'")
    time.sleep(0.005)
    db.execute("DELETE FROM g WHERE e = ':alice' AND a = ':name'")
    return db


def test_current_state(history):
    assert rows(history, "SELECT e, a, v, tx FROM g") == [(":alice", ":age", 31, 3)]


@pytest.mark.parametrize("as_of, expected", [
    (0, []),
    (1, [(":alice", ":age", 30)]),
    (2, [(":alice", ":age", 30), (":alice", ":name", "Alice")]),
    (3, [(":alice", ":age", 31), (":alice", ":name", "Alice")]),
    (4, [(":alice", ":age", 31)]),
    (99, [(":alice", ":age", 31)]),
])
def test_as_of_counter(history, as_of, expected):
    assert state(history, "as_of = ?", (as_of,)) == expected
    # the hidden column shows what was asked
    assert {r[0] for r in rows(history, "SELECT as_of FROM g WHERE as_of = ?", (as_of,))} <= {as_of}


def test_as_of_counter_must_be_non_negative(history):
    with pytest.raises(sqlite3.OperationalError) as caught:
        history.execute("SELECT * FROM g WHERE as_of = -1").fetchall()
    assert str(caught.value) == "datalog: :as-of counter must be non-negative"


def test_as_of_iso_time(history):
    # the wall time of each transaction, from the rows it asserted (tx 4 only retracted)
    times = {}
    for as_of in (1, 2, 3):
        times.update(rows(history, "SELECT tx, tx_time FROM g WHERE as_of = ?", (as_of,)))
    assert sorted(times) == [1, 2, 3]
    for t in times.values():
        assert len(t) == 24 and t.endswith("Z")
    assert iso_to_ms(times[1]) < iso_to_ms(times[2]) < iso_to_ms(times[3])
    before_everything = ms_to_iso(iso_to_ms(times[1]) - 1)
    assert state(history, "as_of = ?", (before_everything,)) == []
    assert state(history, "as_of = ?", (times[1],)) == [(":alice", ":age", 30)]
    assert state(history, "as_of = ?", (times[2],)) == [
        (":alice", ":age", 30), (":alice", ":name", "Alice")]
    just_before_3 = ms_to_iso(iso_to_ms(times[3]) - 1)
    assert state(history, "as_of = ?", (just_before_3,)) == state(history, "as_of = 2")
    assert state(history, "as_of = ?", (times[3],)) == state(history, "as_of = 3")
    assert state(history, "as_of = '2999-01-01'") == state(history)
    assert state(history, "as_of = '1970-01-01'") == []


def test_delete_keeps_history(history):
    assert state(history, "a = ':name'") == []
    assert state(history, "a = ':name' AND valid_at = 'any'") == []  # a retraction ends all time
    assert state(history, "a = ':name' AND as_of = 3") == [(":alice", ":name", "Alice")]
    assert state(history, "a = ':name' AND as_of = 3 AND valid_at = 'any'") == [
        (":alice", ":name", "Alice")]


def test_update_is_retract_and_assert(history):
    assert rows(history, "SELECT v, tx FROM g WHERE a = ':age' AND as_of = 2") == [(30, 1)]
    assert rows(history, "SELECT v, tx FROM g WHERE a = ':age' AND as_of = 3") == [(31, 3)]
    # UPDATE kept the row's valid_from (only v changed)
    old = rows(history, "SELECT valid_from FROM g WHERE a = ':age' AND as_of = 2")
    new = rows(history, "SELECT valid_from FROM g WHERE a = ':age'")
    assert old == new


def test_reassert_after_retraction(history):
    history.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':name', 'Alice')")
    assert rows(history, "SELECT v, tx FROM g WHERE a = ':name'") == [("Alice", 5)]
    assert state(history, "a = ':name' AND as_of = 4") == []
    assert state(history, "a = ':name' AND as_of = 2") == [(":alice", ":name", "Alice")]


@pytest.fixture
def jobs(db):
    db.execute("""INSERT INTO g(e, a, v, valid_from, valid_to) VALUES
        (':alice', ':works-at', 'Acme', '2019-01-01', '2022-07-01'),
        (':alice', ':works-at', 'Globex', '2022-07-01', NULL),
        (':bob', ':works-at', 'Initech', '2030-01-01', NULL)""")
    return db


@pytest.mark.parametrize("valid_at, expected", [
    ("2018-12-31T23:59:59.999Z", []),
    ("2019-01-01", ["Acme"]),                       # valid_from is inclusive
    ("2020-06-01", ["Acme"]),
    ("2022-06-30T23:59:59.999Z", ["Acme"]),
    ("2022-07-01", ["Globex"]),                     # valid_to is exclusive
    ("2031-01-01", ["Globex", "Initech"]),
    (1591000000000, ["Acme"]),                      # integer milliseconds: 2020-06-01T08:26:40Z
    (1546300800000, ["Acme"]),                      # 2019-01-01 exactly
    ("any", ["Acme", "Globex", "Initech"]),
    (":any-valid-time", ["Acme", "Globex", "Initech"]),
])
def test_valid_at(jobs, valid_at, expected):
    got = rows(jobs, "SELECT v FROM g WHERE a = ':works-at' AND valid_at = ? ORDER BY v",
               (valid_at,))
    assert [v for (v,) in got] == expected


def test_default_view_is_valid_now(jobs):
    assert rows(jobs, "SELECT e, v FROM g ORDER BY e") == [(":alice", "Globex")]
    assert rows(jobs, "SELECT v, valid_from, valid_to FROM g WHERE valid_at = 'any' ORDER BY v") \
        == [("Acme", "2019-01-01T00:00:00.000Z", "2022-07-01T00:00:00.000Z"),
            ("Globex", "2022-07-01T00:00:00.000Z", None),
            ("Initech", "2030-01-01T00:00:00.000Z", None)]


def test_valid_time_bounds_as_integer_milliseconds(db):
    db.execute("INSERT INTO g(e, a, v, valid_from, valid_to) VALUES (':x', ':a', 1, 1000, 2000)")
    assert rows(db, "SELECT valid_from, valid_to FROM g WHERE valid_at = 1500") == [
        ("1970-01-01T00:00:01.000Z", "1970-01-01T00:00:02.000Z")]
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 2000") == [(0,)]


def test_default_valid_from_is_the_transaction_time(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':a', 1)")
    ((tx_time, valid_from, valid_to),) = rows(db, "SELECT tx_time, valid_from, valid_to FROM g")
    assert valid_from == tx_time and valid_to is None
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = ?",
                (ms_to_iso(iso_to_ms(tx_time) - 1),)) == [(0,)]


def test_as_of_and_valid_at_compose(jobs):
    jobs.execute("DELETE FROM g WHERE v = 'Acme' AND valid_at = 'any'")        # tx 2
    assert rows(jobs, "SELECT v FROM g WHERE valid_at = '2020-06-01'") == []
    assert rows(jobs, "SELECT v FROM g WHERE valid_at = '2020-06-01' AND as_of = 1") == [("Acme",)]
    assert rows(jobs, "SELECT v, as_of, valid_at FROM g WHERE as_of = 1 AND valid_at = 'any' "
                      "ORDER BY v") == [("Acme", 1, "any"), ("Globex", 1, "any"),
                                        ("Initech", 1, "any")]


def test_retraction_cancels_every_window_of_the_fact(db):
    db.execute("""INSERT INTO g(e, a, v, valid_from, valid_to) VALUES
        (':x', ':status', 'on', '2019-01-01', '2020-01-01'),
        (':x', ':status', 'on', '2021-01-01', NULL)""")
    assert rows(db, "SELECT valid_from FROM g WHERE valid_at = 'any' ORDER BY 1") == [
        ("2019-01-01T00:00:00.000Z",), ("2021-01-01T00:00:00.000Z",)]
    db.execute("DELETE FROM g WHERE e = ':x' AND a = ':status'")  # sees only the current window
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any'") == [(0,)]
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 1") == [(2,)]


def test_update_of_the_valid_window_only(db):
    db.execute("INSERT INTO g(e, a, v, valid_from) VALUES (':x', ':job', 'Acme', '2019-01-01')")
    db.execute("UPDATE g SET valid_to = '2022-07-01' WHERE e = ':x' AND a = ':job'")
    # same (e, a, v): retracted and re-asserted in one transaction; the new window wins
    assert rows(db, "SELECT v, tx, valid_from, valid_to FROM g WHERE valid_at = 'any'") == [
        ("Acme", 2, "2019-01-01T00:00:00.000Z", "2022-07-01T00:00:00.000Z")]
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]  # not valid now
    assert rows(db, "SELECT valid_to FROM g WHERE as_of = 1") == [(None,)]


def test_retract_then_assert_in_one_transaction(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("BEGIN")
    db.execute("DELETE FROM g WHERE e = ':x'")
    db.execute("INSERT INTO g(e, a, v, valid_from) VALUES (':x', ':n', 1, '2000-01-01')")
    assert rows(db, "SELECT v, tx, valid_from FROM g") == [(1, 2, "2000-01-01T00:00:00.000Z")]
    db.execute("COMMIT")
    assert rows(db, "SELECT v, tx, valid_from FROM g") == [(1, 2, "2000-01-01T00:00:00.000Z")]


def test_assert_then_retract_in_one_transaction(db):
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("DELETE FROM g WHERE e = ':x'")
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any'") == [(0,)]
    db.execute("COMMIT")
    assert rows(db, "SELECT count(*) FROM g WHERE valid_at = 'any'") == [(0,)]


def test_past_fact_is_invisible_now_but_visible_in_its_window(db):
    db.execute("INSERT INTO g(e, a, v, valid_from, valid_to) "
               "VALUES (':x', ':lived-in', 'Paris', '2001-01-01', '2005-01-01')")
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]
    assert rows(db, "SELECT v FROM g WHERE valid_at = '2003-03-03'") == [("Paris",)]
    assert rows(db, "SELECT v FROM g WHERE e = ':x' AND valid_at = '2003-03-03'") == [("Paris",)]
    assert rows(db, "SELECT v FROM g WHERE a = ':lived-in' AND v = 'Paris' "
                    "AND valid_at = '2003-03-03'") == [("Paris",)]


def test_same_fact_asserted_in_two_transactions_has_two_windows(db):
    """LANGUAGE.md §5: assertions are kept per valid-time window; the default window starts at
    the transaction time, so asserting again later adds a second, overlapping window."""
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    time.sleep(0.005)
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(db, "SELECT v, tx FROM g ORDER BY tx") == [(1, 1), (1, 2)]
    # the same window again in one later transaction: the latest assertion of it is shown
    db.execute("INSERT INTO g(e, a, v, valid_from) VALUES (':y', ':n', 1, '2000-01-01')")
    db.execute("INSERT INTO g(e, a, v, valid_from) VALUES (':y', ':n', 1, '2000-01-01')")
    assert rows(db, "SELECT v, tx FROM g WHERE e = ':y'") == [(1, 4)]


def test_as_of_inside_a_write_transaction_sees_its_own_tx(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)")
    assert state(db, "as_of = 1") == [(":x", ":n", 1)]
    assert state(db, "as_of = 2") == [(":x", ":n", 1), (":x", ":n", 2)]
    db.execute("ROLLBACK")
    assert state(db, "as_of = 2") == [(":x", ":n", 1)]
