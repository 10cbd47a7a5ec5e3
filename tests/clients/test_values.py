"""Every value type round-trips through SQL without loss or ambiguity (sql_values.h)."""
import math
import sqlite3

import pytest

from conftest import connect, known_bug, rows

UUID = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
GIANT_TEXT = "giant:" + "\u00e9x" * 400          # 806 bytes of UTF-8, beyond a key
GIANT_BYTES = bytes(range(256)) * 3 + b"\x00" * 100  # 868 bytes with zeros

# (attribute, v given, vtype given, v read back, vtype read back)
CASES = [
    (":s/empty", "", None, "", "string"),
    (":s/unicode", "h\u00e9llo \u2713 \u65e5\u672c \U0001F600", None,
     "h\u00e9llo \u2713 \u65e5\u672c \U0001F600", "string"),
    (":s/typed", "plain", "string", "plain", "string"),
    (":s/giant", GIANT_TEXT, None, GIANT_TEXT, "string"),
    (":s/colon", ":bob", None, ":bob", "string"),            # text that looks like a keyword
    (":s/colon-typed", ":bob", "string", ":bob", "string"),
    (":s/uuid-looking", UUID, None, UUID, "string"),
    (":s/iso-looking", "2020-06-01", None, "2020-06-01", "string"),
    (":i/zero", 0, None, 0, "integer"),
    (":i/min", -2**63, None, -2**63, "integer"),
    (":i/max", 2**63 - 1, "integer", 2**63 - 1, "integer"),
    (":f/negzero", -0.0, None, 0.0, "float"),
    (":f/huge", 1e300, None, 1e300, "float"),
    (":f/neg", -1.5, None, -1.5, "float"),
    (":f/tiny", 5e-324, None, 5e-324, "float"),
    (":f/from-int", 3, "float", 3.0, "float"),
    (":b/false", 0, "boolean", 0, "boolean"),
    (":b/true", 1, "boolean", 1, "boolean"),
    (":b/true-text", "true", "boolean", 1, "boolean"),
    (":b/false-text", "false", "boolean", 0, "boolean"),
    (":k/plain", ":bob", "keyword", ":bob", "keyword"),
    (":k/ns", ":person/name", "keyword", ":person/name", "keyword"),
    (":r/ident", ":bob", "ref", ":bob", "ref"),
    (":r/id", 42, "ref", 42, "ref"),
    (":r/uuid", UUID, "ref", UUID, "ref"),
    (":r/uuid-upper", UUID.upper(), "ref", UUID, "ref"),
    (":t/iso", "2020-06-01T12:34:56.789Z", "instant", "2020-06-01T12:34:56.789Z", "instant"),
    (":t/date", "2020-06-01", "instant", "2020-06-01T00:00:00.000Z", "instant"),
    (":t/ms", 1591014896789, "instant", "2020-06-01T12:34:56.789Z", "instant"),
    (":t/before-epoch", -1, "instant", "1969-12-31T23:59:59.999Z", "instant"),
    (":t/fraction", "2020-06-01T12:34:56.5Z", "instant", "2020-06-01T12:34:56.500Z", "instant"),
    (":u/lower", UUID, "uuid", UUID, "uuid"),
    (":u/upper", UUID.upper(), "uuid", UUID, "uuid"),
    (":y/zeros", b"\x00\x01\x00", None, b"\x00\x01\x00", "bytes"),
    (":y/empty", b"", None, b"", "bytes"),
    (":y/giant", GIANT_BYTES, None, GIANT_BYTES, "bytes"),
    (":y/from-text", "abc", "bytes", b"abc", "bytes"),
    (":n/null", None, None, None, "nil"),
    (":n/typed", None, "nil", None, "nil"),
]

SQL_TYPE = {str: "text", int: "integer", float: "real", bytes: "blob", type(None): "null"}


def same(a, b):
    """Equal values of the same Python type (so 1 != 1.0 != True) and the same float sign."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


@pytest.fixture
def loaded(db):
    db.execute("BEGIN")
    for attribute, v, vtype, _, _ in CASES:
        db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ?, ?, ?)", (attribute, v, vtype))
    db.execute("COMMIT")
    return db


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_round_trip(loaded, case):
    attribute, _, _, want_v, want_vtype = case
    got = rows(loaded, "SELECT v, vtype, typeof(v) FROM g WHERE a = ?", (attribute,))
    assert len(got) == 1, got
    v, vtype, sql_type = got[0]
    assert same(v, want_v), (v, want_v)
    assert vtype == want_vtype
    assert sql_type == SQL_TYPE[type(want_v)]


@pytest.mark.parametrize("case", [c for c in CASES if c[3] is not None],
                         ids=[c[0] for c in CASES if c[3] is not None])
def test_found_by_equality_on_each_index(loaded, case):
    attribute, _, _, want_v, want_vtype = case
    for sql in [
        "SELECT v, vtype FROM g WHERE a = ? AND v = ?",
        "SELECT v, vtype FROM g WHERE e = ':x' AND a = ? AND v = ?",
        "SELECT v, vtype FROM g WHERE +a = ? AND +v = ?",  # a full scan, for comparison
    ]:
        got = rows(loaded, sql, (attribute, want_v))
        assert len(got) == 1 and same(got[0][0], want_v) and got[0][1] == want_vtype, (sql, got)
    typed = rows(loaded, "SELECT v FROM g WHERE a = ? AND v = ? AND vtype = ?",
                 (attribute, want_v, want_vtype))
    assert len(typed) == 1


def test_copy_to_a_second_graph_preserves_everything(loaded):
    loaded.execute("CREATE VIRTUAL TABLE g2 USING datalog('g2.graph')")
    loaded.execute(
        "INSERT INTO g2(e, a, v, vtype, tx, tx_time, valid_from, valid_to) "
        "SELECT e, a, v, vtype, NULL, NULL, valid_from, valid_to FROM g")
    query = ("SELECT e, a, v, vtype, typeof(v), valid_from, valid_to FROM {} "
             "ORDER BY a, vtype")
    original = rows(loaded, query.format("g"))
    copy = rows(loaded, query.format("g2"))
    assert len(original) == len(CASES)
    assert len(copy) == len(original)
    for x, y in zip(original, copy):
        assert x[:2] == y[:2] and same(x[2], y[2]) and x[3:] == y[3:], (x, y)


def test_string_and_keyword_and_ref_with_the_same_text_stay_distinct(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':val', ':bob')")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ':val', ':bob', 'keyword')")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ':val', ':bob', 'ref')")
    assert rows(db, "SELECT v, vtype FROM g WHERE a = ':val' ORDER BY vtype") == [
        (":bob", "keyword"), (":bob", "ref"), (":bob", "string")]
    assert rows(db, "SELECT vtype FROM g WHERE a = ':val' AND v = ':bob' AND vtype = 'string'") \
        == [("string",)]
    assert rows(db, "SELECT vtype FROM g WHERE v = ':bob' AND vtype = 'ref'") == [("ref",)]


def test_numbers_of_different_kinds_stay_distinct(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1.0)")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ':n', 1, 'boolean')")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ':n', 1, 'ref')")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ':n', 1, 'instant')")
    got = rows(db, "SELECT v, vtype, typeof(v) FROM g WHERE a = ':n' ORDER BY vtype")
    assert got == [(1, "boolean", "integer"), (1.0, "float", "real"),
                   ("1970-01-01T00:00:00.001Z", "instant", "text"), (1, "integer", "integer"),
                   (1, "ref", "integer")]
    # SQL equality with 1 matches every numeric form; vtype narrows it.
    assert rows(db, "SELECT vtype FROM g WHERE a = ':n' AND v = 1 ORDER BY vtype") == [
        ("boolean",), ("float",), ("integer",), ("ref",)]
    assert rows(db, "SELECT vtype FROM g WHERE a = ':n' AND v = 1.0 AND vtype = 'float'") == [
        ("float",)]


def test_entities_by_ident_id_and_uuid(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':n', 1)")
    db.execute("INSERT INTO g(e, a, v) VALUES (7, ':n', 2)")
    db.execute("INSERT INTO g(e, a, v) VALUES (?, ':n', 3)", (UUID,))
    db.execute("INSERT INTO g(e, a, v) VALUES (?, ':n', 4)", (UUID.upper(),))  # same entity
    assert rows(db, "SELECT e, typeof(e), v FROM g ORDER BY v") == [
        (":alice", "text", 1), (7, "integer", 2), (UUID, "text", 3), (UUID, "text", 4)]
    assert rows(db, "SELECT v FROM g WHERE e = ? ORDER BY v", (UUID,)) == [(3,), (4,)]
    assert rows(db, "SELECT v FROM g WHERE e = 7") == [(2,)]


def test_ref_to_an_entity_shows_its_ident_once_it_has_one(db):
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':alice', ':friend', ':bob', 'ref')")
    db.execute("INSERT INTO g(e, a, v) VALUES (':bob', ':name', 'Bob')")
    # The ref and the entity are the same: a join on them works.
    assert rows(db, """SELECT f.e, n.v FROM g AS f JOIN g AS n ON n.e = f.v
                       WHERE f.a = ':friend' AND n.a = ':name'""") == [(":alice", "Bob")]


def test_string_with_embedded_nul(db):
    text = "a\x00b\x01c"
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':nul', ?)", (text,))
    assert rows(db, "SELECT v, vtype, length(CAST(v AS BLOB)) FROM g WHERE a = ':nul'") == [
        (text, "string", 5)]
    assert rows(db, "SELECT count(*) FROM g WHERE a = ':nul' AND v = ?", (text,)) == [(1,)]
    assert rows(db, "SELECT count(*) FROM g WHERE a = ':nul' AND v = 'a'") == [(0,)]
    # Text without a NUL of its own goes to SQLite as terminated text (terminated_text.h); this
    # one must keep its length on every path that hands text back.
    db.execute("""CREATE VIRTUAL TABLE nul_q USING datalog_query(g,
                  '(query [:find ?v :where [?e :nul ?v] [(= ?v $w)]])')""")
    assert rows(db, "SELECT v, w, length(CAST(v AS BLOB)), length(CAST(w AS BLOB)) FROM nul_q(?)",
                (text,)) == [(text, text, 5, 5)]
    assert rows(db, "SELECT w FROM nul_q WHERE w = ?", (text,)) == [(text,)]
    assert rows(db, "SELECT c1 FROM datalog_q('g', '(query [:find ?v :where [_ :nul ?v]])')") == [(text,)]
    # Passed to an SQL function from Datalog as a bound argument, and back.
    assert rows(db, """SELECT c1, c2 FROM datalog_q('g',
                       '(query [:find ?n ?u :where [_ :nul ?v] [(length ?v) ?n] [(upper ?v) ?u]])')""") == [
        (1, "A\x00B\x01C")]


@pytest.mark.parametrize("encoding", ["UTF-8", "UTF-16le", "UTF-16be"])
def test_text_arguments_in_every_database_encoding(tmp_path, encoding):
    """Text arguments are read as UTF-8 whatever the database's encoding (sql_text.cpp text_of):
    a UTF-16 database hands SQL functions and virtual tables UTF-16 text."""
    conn = connect(tmp_path / "enc.db")
    conn.execute(f"PRAGMA encoding = '{encoding}'")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert rows(conn, "PRAGMA encoding") == [(encoding,)]
    name = "J\u00fcrgen \u65e5\u672c \U0001F600"
    conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':name', ?)", (":j\u00fc", name))
    conn.execute("SELECT datalog_exec('g', ?)", (f'(transact [[:k :name "{name}x"]])',))
    conn.execute("""CREATE VIRTUAL TABLE by_name USING datalog_query(g,
                    '(query [:find ?e :where [?e :name $name]])')""")
    assert rows(conn, "SELECT e, name FROM by_name(?)", (name,)) == [(":j\u00fc", name)]
    assert rows(conn, "SELECT e FROM by_name(?)", (name + "x",)) == [(":k",)]
    assert rows(conn, "SELECT c1 FROM datalog_q('g', '(query [:find ?n :where [$e :name ?n]])', ?)",
                (":j\u00fc",)) == [(name,)]
    assert rows(conn, "SELECT e, v FROM g WHERE v = ?", (name,)) == [(":j\u00fc", name)]
    assert rows(conn, "SELECT e FROM g WHERE e = ? AND a = ':name'", (":j\u00fc",)) == [(":j\u00fc",)]
    # Text made by SQL in the database's encoding, not bound by the client.
    assert rows(conn, "SELECT e FROM by_name('J' || char(252) || 'rgen ' || char(26085, 26412, 32, 128512))") == [
        (":j\u00fc",)]


def test_nan_cannot_be_stored(db):
    # SQLite turns a NaN parameter into NULL before the table sees it: with vtype 'float' it is
    # refused; without a vtype it is stored as nil (SQLite's doing, not the table's).
    with pytest.raises(sqlite3.OperationalError,
                       match="^datalog: v: value NULL cannot be stored as float: "
                             "expected a number$"):
        db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ':f', ?, 'float')",
                   (float("nan"),))
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':f', ?)", (float("nan"),))
    assert rows(db, "SELECT v, vtype FROM g") == [(None, "nil")]


def test_infinities(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':f', ?)", (float("inf"),))
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':f', ?)", (float("-inf"),))
    db.execute("INSERT INTO g(e, a, v) VALUES (':x', ':f', 0.5)")
    assert rows(db, "SELECT v FROM g WHERE a = ':f' ORDER BY v") == [
        (float("-inf"),), (0.5,), (float("inf"),)]
    assert rows(db, "SELECT v FROM g WHERE a = ':f' AND v > 1") == [(float("inf"),)]
    assert rows(db, "SELECT v FROM g WHERE a = ':f' AND v < 0") == [(float("-inf"),)]


GIANT = "g" * 10_000


def test_giant_value_found_by_equality_and_deleted(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':doc', ':body', ?)", (GIANT,))
    db.execute("INSERT INTO g(e, a, v) VALUES (':doc', ':body', ?)", (GIANT + "h",))  # same prefix
    db.execute("INSERT INTO g(e, a, v) VALUES (':doc', ':body', 'short')")
    assert rows(db, "SELECT length(v) FROM g WHERE a = ':body' AND v = ?", (GIANT,)) == [(10_000,)]
    assert rows(db, "SELECT length(v) FROM g WHERE a = ':body' AND v = ?", (GIANT + "h",)) == [
        (10_001,)]
    assert rows(db, "SELECT count(*) FROM g WHERE a = ':body' AND v = ?", (GIANT + "i",)) == [(0,)]
    assert rows(db, "EXPLAIN QUERY PLAN SELECT * FROM g WHERE a = ':body' AND v = ?",
                (GIANT,))[0][3] in ("SCAN g VIRTUAL TABLE INDEX 3:avet av",
                                    "SCAN g VIRTUAL TABLE INDEX 1:eavt eav")
    db.execute("DELETE FROM g WHERE a = ':body' AND v = ?", (GIANT,))
    assert rows(db, "SELECT length(v) FROM g WHERE a = ':body' ORDER BY 1") == [(5,), (10_001,)]
    # The retraction keeps history: before it, the giant is there in full.
    assert rows(db, "SELECT v = ? FROM g WHERE a = ':body' AND as_of = 1 AND length(v) = 10000",
                (GIANT,)) == [(1,)]
    db.execute("DELETE FROM g WHERE e = ':doc' AND a = ':body' AND v = ?", (GIANT + "h",))
    assert rows(db, "SELECT v FROM g WHERE a = ':body'") == [("short",)]


def test_giant_blob_round_trip_and_delete(db):
    blob = bytes([0, 1, 2, 255]) * 5000
    db.execute("INSERT INTO g(e, a, v) VALUES (':doc', ':raw', ?)", (blob,))
    assert rows(db, "SELECT v FROM g WHERE a = ':raw' AND v = ?", (blob,)) == [(blob,)]
    db.execute("DELETE FROM g WHERE a = ':raw' AND v = ?", (blob,))
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]


def test_giant_value_update(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':doc', ':body', ?)", (GIANT,))
    db.execute("UPDATE g SET v = v || 'tail' WHERE a = ':body'")
    assert rows(db, "SELECT v = ? FROM g WHERE a = ':body'", (GIANT + "tail",)) == [(1,)]


def test_instants_at_the_ends_of_the_iso_range(db):
    for attribute, ms, text in [(":t/last", 253402300799999, "9999-12-31T23:59:59.999Z"),
                                (":t/first", -62167219200000, "0000-01-01T00:00:00.000Z")]:
        db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ?, ?, 'instant')", (attribute, ms))
        assert rows(db, "SELECT v FROM g WHERE a = ?", (attribute,)) == [(text,)]
        db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':y', ?, ?, 'instant')",
                   (attribute, text))
        assert rows(db, "SELECT count(*) FROM g WHERE a = ? AND v = ? AND vtype = 'instant'",
                    (attribute, text)) == [(2,)]


@pytest.mark.parametrize("ms", [253402300800000, 2**63 - 1, -2**63, -62167219200001])
def test_instant_outside_the_iso_range_is_refused_or_round_trips(db, ms):
    """An instant the table accepts must read back as text that it accepts again and that
    names the same instant (so INSERT ... SELECT copies it)."""
    try:
        db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':x', ':t', ?, 'instant')", (ms,))
    except sqlite3.OperationalError as e:
        assert str(e).startswith("datalog: v: "), e
        return
    ((text,),) = rows(db, "SELECT v FROM g WHERE a = ':t'")
    db.execute("INSERT INTO g(e, a, v, vtype) SELECT ':y', a, v, vtype FROM g WHERE a = ':t'")
    assert rows(db, "SELECT e, v FROM g WHERE a = ':t' ORDER BY e") == [(":x", text), (":y", text)]


@pytest.mark.parametrize("column", ["valid_from", "valid_to"])
def test_valid_time_outside_the_iso_range_is_refused_or_round_trips(db, column):
    try:
        db.execute(f"INSERT INTO g(e, a, v, {column}) VALUES (':x', ':n', 1, ?)",
                   (-2**63 if column == "valid_from" else 253402300800000,))
    except sqlite3.OperationalError as e:
        assert str(e).startswith(f"datalog: {column}"), e
        return
    ((text,),) = rows(db, f"SELECT {column} FROM g WHERE valid_at = 'any'")
    db.execute(f"INSERT INTO g(e, a, v, {column}) VALUES (':y', ':n', 1, ?)", (text,))
    assert rows(db, f"SELECT e, {column} FROM g WHERE valid_at = 'any' ORDER BY e") == [
        (":x", text), (":y", text)]


@pytest.mark.parametrize("column, vtype", [("e", None), ("v", "ref")])
def test_integer_entity_ids_do_not_alias_idents(db, column, vtype):
    """Idents get ids from 2^52 up. An integer id the application gives in that range must not
    silently name an ident's entity (here the attribute :n itself, or :alice): refuse it, or
    keep it as the integer it is."""
    db.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':n', 'first ident')")
    raw = 2**52 + 1  # the second ident made: the attribute :n
    sql = ("INSERT INTO g(e, a, v) VALUES (?, ':n', 'raw')" if column == "e" else
           "INSERT INTO g(e, a, v, vtype) VALUES (':r', ':n', ?, 'ref')")
    try:
        db.execute(sql, (raw,))
    except sqlite3.OperationalError as e:
        assert str(e).startswith("datalog: "), e
        return
    got = rows(db, f"SELECT {column} FROM g WHERE e = ? OR (e = ':r' AND vtype = 'ref')", (raw,))
    assert got == [(raw,)]
