"""Index plans (store_plan.h): the plan each constraint shape gets, and rows that are the same
as a full scan filtered by SQLite's comparison rules, whatever the plan."""
import collections
import re

import pytest

from conftest import connect, known_bug, rows

UUID_A = "00000000-0000-4000-8000-000000000001"
UUID_B = "ffffffff-0000-4000-8000-000000000002"
GIANT_A = "m" * 300 + "a"
GIANT_B = "m" * 300 + "b"
GIANT_BLOB = b"\x00" * 300 + b"\x01"

# Values of every kind on one attribute: (v, vtype)
MIXED = [
    (-2**63, None), (-9_220_000_000_000_000_000, None), (-5, None), (0, None), (1, None),
    (2, None), (3, None), (10, None), (11, None), (2**53 + 1, None),
    (9_220_000_000_000_000_000, None), (2**63 - 1, None),
    (-1e300, None), (-2.5, None), (0.5, None), (2.5, None), (3.0, None), (10.0, None),
    (1e300, None),
    (0, "boolean"), (1, "boolean"),
    ("", None), ("1", None), ("10", None), ("9", None), ("A", None), ("Z", None), ("a", None),
    ("ab", None), ("abc", None), ("b", None), ("\u00e9", None), (":p1", None), (GIANT_A, None),
    (GIANT_B, None), ("m" * 300, None),
    (":a", "keyword"), (":p1", "keyword"), (":zzz", "keyword"),
    (":p1", "ref"), (":p2", "ref"), (5, "ref"), (10, "ref"), (11, "ref"), (UUID_A, "ref"),
    ("2020-01-01", "instant"), ("1999-12-31T23:59:59.999Z", "instant"), (0, "instant"),
    (UUID_A, "uuid"), (UUID_B, "uuid"),
    (b"", None), (b"\x00", None), (b"\x00\x00", None), (b"\x01", None), (b"a", None),
    (b"\xff", None), (GIANT_BLOB, None),
    (None, None),
]

PEOPLE = 120


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    folder = tmp_path_factory.mktemp("plans")
    conn = connect(folder / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("BEGIN")
    for i in range(PEOPLE):
        e = f":p{i}"
        conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':name', ?)", (e, f"name{i:03}"))
        conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':age', ?)", (e, i % 90))
        conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':score', ?)", (e, i * 0.5))
        conn.execute("INSERT INTO g(e, a, v, vtype) VALUES (?, ':friend', ?, 'ref')",
                     (e, f":p{(i + 1) % PEOPLE}"))
        conn.execute("INSERT INTO g(e, a, v, vtype) VALUES (?, ':active', ?, 'boolean')",
                     (e, i % 2))
    for n, (v, vtype) in enumerate(MIXED):
        # entities 1..: integer ids, and a few idents
        e = n + 1 if n % 3 else f":m{n}"
        conn.execute("INSERT INTO g(e, a, v, vtype) VALUES (?, ':mixed', ?, ?)", (e, v, vtype))
        conn.execute("INSERT INTO g(e, a, v, vtype) VALUES (':all', ':mixed', ?, ?)", (v, vtype))
    # a retracted and an updated fact, so history is in the indexes too
    conn.execute("INSERT INTO g(e, a, v) VALUES (':p1', ':age', 999)")
    conn.execute("COMMIT")
    conn.execute("DELETE FROM g WHERE e = ':p1' AND a = ':age' AND v = 999")
    conn.execute("UPDATE g SET v = 100 WHERE e = ':p2' AND a = ':age'")
    yield conn
    conn.close()


# --- SQLite's comparison rules, for the Python oracle ----------------------------------------

def _class(x):
    if x is None:
        return 0
    if isinstance(x, (int, float)):
        return 1
    if isinstance(x, str):
        return 2
    return 3


def compare(x, y):
    """SQLite's BINARY comparison of two values; None when either is NULL."""
    if x is None or y is None:
        return None
    cx, cy = _class(x), _class(y)
    if cx != cy:
        return -1 if cx < cy else 1
    if cx == 2:
        x, y = x.encode(), y.encode()
    return (x > y) - (x < y)


def op(name):
    tests = {"=": lambda c: c == 0, "<": lambda c: c < 0, "<=": lambda c: c <= 0,
             ">": lambda c: c > 0, ">=": lambda c: c >= 0}[name]

    def apply(x, y):
        c = compare(x, y)
        return c is not None and tests(c)
    return apply


EQ, LT, LE, GT, GE = op("="), op("<"), op("<="), op(">"), op(">=")

Row = collections.namedtuple("Row", "e a v vtype")


def full_scan(conn):
    return [Row(*r) for r in rows(conn, "SELECT e, a, v, vtype FROM g")]


def counted(items):
    # -0.0 and 0.0 are one SQL value; key on a normalised form that keeps types apart
    return collections.Counter(tuple((type(x).__name__, x) for x in r) for r in items)


def plan_of(conn, sql, params):
    return [r[3] for r in rows(conn, "EXPLAIN QUERY PLAN " + sql, params)]


def unindexed(where):
    """The same WHERE with every column behind unary +, so SQLite can use no index."""
    return re.sub(r"\b(e|a|v|vtype)\b(?= )", r"+\1", where)



# (plan detail, WHERE, parameters, Python predicate over a Row)
SHAPES = [
    ("0:scan ", "1", (), lambda r: True),
    ("1:eavt e", "e = ?", (":p7",), lambda r: EQ(r.e, ":p7")),
    ("1:eavt e", "e = ?", (5,), lambda r: EQ(r.e, 5)),
    ("1:eavt e", "e = ?", (4,), lambda r: False),  # entity 4 has the ident :m3
    ("1:eavt e", "e = ?", (":nobody",), lambda r: False),
    ("1:eavt e", "e = ?", ("p7",), lambda r: EQ(r.e, "p7")),
    ("1:eavt e", "e IN (?, ?, ?)", (":p1", ":p2", 5),
     lambda r: r.e in (":p1", ":p2", 5)),
    ("1:eavt ea", "e = ? AND a = ?", (":p7", ":age"),
     lambda r: EQ(r.e, ":p7") and EQ(r.a, ":age")),
    ("1:eavt ea", "e = ? AND a = ?", (":all", ":mixed"),
     lambda r: EQ(r.e, ":all") and EQ(r.a, ":mixed")),
    ("1:eavt eav", "e = ? AND a = ? AND v = ?", (":all", ":mixed", 1),
     lambda r: EQ(r.e, ":all") and EQ(r.a, ":mixed") and EQ(r.v, 1)),
    ("1:eavt eav", "e = ? AND a = ? AND v = ?", (":all", ":mixed", ":p1"),
     lambda r: EQ(r.e, ":all") and EQ(r.a, ":mixed") and EQ(r.v, ":p1")),
    ("2:aevt a", "a = ?", (":age",), lambda r: EQ(r.a, ":age")),
    ("2:aevt a", "a = ?", ("age",), lambda r: EQ(r.a, "age")),
    ("2:aevt a", "a = ?", (":unknown",), lambda r: False),
    ("3:avet av", "a = ? AND v = ?", (":age", 7), lambda r: EQ(r.a, ":age") and EQ(r.v, 7)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", 1), lambda r: EQ(r.a, ":mixed") and EQ(r.v, 1)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", 1.0),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, 1.0)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", 0), lambda r: EQ(r.a, ":mixed") and EQ(r.v, 0)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", 10),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, 10)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", ":p1"),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, ":p1")),
    ("3:avet av", "a = ? AND v = ?", (":mixed", UUID_A),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, UUID_A)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", "2020-01-01T00:00:00.000Z"),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, "2020-01-01T00:00:00.000Z")),
    ("3:avet av", "a = ? AND v = ?", (":mixed", "2020-01-01"),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, "2020-01-01")),
    ("3:avet av", "a = ? AND v = ?", (":mixed", GIANT_B),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, GIANT_B)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", b"\x00"),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, b"\x00")),
    ("3:avet av", "a = ? AND v = ?", (":mixed", GIANT_BLOB),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, GIANT_BLOB)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", 2**63 - 1),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, 2**63 - 1)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", 9.223372036854775807e18),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, 9.223372036854775807e18)),
    ("3:avet av", "a = ? AND v = ?", (":mixed", None), lambda r: False),
    ("3:avet av", "a = ? AND v IN (?, ?, ?)", (":mixed", 3, "a", b"a"),
     lambda r: EQ(r.a, ":mixed") and r.v in (3, "a", b"a") and _class(r.v) > 0),
    ("3:avet avt", "a = ? AND v = ? AND vtype = ?", (":mixed", 1, "boolean"),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, 1) and r.vtype == "boolean"),
    ("3:avet avt", "a = ? AND v = ? AND vtype = ?", (":mixed", ":p1", "keyword"),
     lambda r: EQ(r.a, ":mixed") and EQ(r.v, ":p1") and r.vtype == "keyword"),
    ("3:avet avt", "a = ? AND v = ? AND vtype = ?", (":mixed", 1, "nonsense"), lambda r: False),
    # ranges, across types
    ("3:avet a>", "a = ? AND v > ?", (":age", 80), lambda r: EQ(r.a, ":age") and GT(r.v, 80)),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", 10),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, 10)),
    ("3:avet a>", "a = ? AND v >= ?", (":mixed", 10),
     lambda r: EQ(r.a, ":mixed") and GE(r.v, 10)),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", 2.5),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, 2.5)),
    ("3:avet a>", "a = ? AND v >= ?", (":mixed", 2.5),
     lambda r: EQ(r.a, ":mixed") and GE(r.v, 2.5)),
    pytest.param("3:avet a>", "a = ? AND v > ?", (":mixed", 9.21e18),
                 lambda r: EQ(r.a, ":mixed") and GT(r.v, 9.21e18)),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", 2**53),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, 2**53)),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", 1e300),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, 1e300)),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", "a"),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, "a")),
    ("3:avet a>", "a = ? AND v >= ?", (":mixed", "a"),
     lambda r: EQ(r.a, ":mixed") and GE(r.v, "a")),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", ":"),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, ":")),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", "m" * 300),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, "m" * 300)),
    ("3:avet a>", "a = ? AND v >= ?", (":mixed", GIANT_B),
     lambda r: EQ(r.a, ":mixed") and GE(r.v, GIANT_B)),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", b"\x00"),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, b"\x00")),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", b""),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, b"")),
    ("3:avet a>", "a = ? AND v > ?", (":mixed", None), lambda r: False),
    ("3:avet a<", "a = ? AND v < ?", (":age", 3), lambda r: EQ(r.a, ":age") and LT(r.v, 3)),
    ("3:avet a<", "a = ? AND v < ?", (":mixed", 3),
     lambda r: EQ(r.a, ":mixed") and LT(r.v, 3)),
    ("3:avet a<", "a = ? AND v <= ?", (":mixed", 3),
     lambda r: EQ(r.a, ":mixed") and LE(r.v, 3)),
    ("3:avet a<", "a = ? AND v < ?", (":mixed", 2.5),
     lambda r: EQ(r.a, ":mixed") and LT(r.v, 2.5)),
    pytest.param("3:avet a<", "a = ? AND v < ?", (":mixed", -9.21e18),
                 lambda r: EQ(r.a, ":mixed") and LT(r.v, -9.21e18)),
    ("3:avet a<", "a = ? AND v < ?", (":mixed", "a"),
     lambda r: EQ(r.a, ":mixed") and LT(r.v, "a")),
    ("3:avet a<", "a = ? AND v <= ?", (":mixed", "a"),
     lambda r: EQ(r.a, ":mixed") and LE(r.v, "a")),
    ("3:avet a<", "a = ? AND v < ?", (":mixed", ""),
     lambda r: EQ(r.a, ":mixed") and LT(r.v, "")),
    ("3:avet a<", "a = ? AND v <= ?", (":mixed", GIANT_A),
     lambda r: EQ(r.a, ":mixed") and LE(r.v, GIANT_A)),
    ("3:avet a<", "a = ? AND v < ?", (":mixed", b"\x00\x00"),
     lambda r: EQ(r.a, ":mixed") and LT(r.v, b"\x00\x00")),
    ("3:avet a<", "a = ? AND v < ?", (":mixed", b"\xff\xff"),
     lambda r: EQ(r.a, ":mixed") and LT(r.v, b"\xff\xff")),
    ("3:avet a><", "a = ? AND v > ? AND v < ?", (":age", 10, 20),
     lambda r: EQ(r.a, ":age") and GT(r.v, 10) and LT(r.v, 20)),
    ("3:avet a><", "a = ? AND v >= ? AND v <= ?", (":mixed", 2, 10),
     lambda r: EQ(r.a, ":mixed") and GE(r.v, 2) and LE(r.v, 10)),
    ("3:avet a><", "a = ? AND v BETWEEN ? AND ?", (":mixed", 0.5, 3),
     lambda r: EQ(r.a, ":mixed") and GE(r.v, 0.5) and LE(r.v, 3)),
    ("3:avet a><", "a = ? AND v > ? AND v < ?", (":mixed", 5, "b"),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, 5) and LT(r.v, "b")),
    ("3:avet a><", "a = ? AND v > ? AND v < ?", (":mixed", "a", 5), lambda r: False),
    ("3:avet a><", "a = ? AND v >= ? AND v < ?", (":mixed", "1", ":"),
     lambda r: EQ(r.a, ":mixed") and GE(r.v, "1") and LT(r.v, ":")),
    ("3:avet a><", "a = ? AND v > ? AND v < ?", (":mixed", "Z", x := b"\x00\x01"),
     lambda r: EQ(r.a, ":mixed") and GT(r.v, "Z") and LT(r.v, b"\x00\x01")),
    ("3:avet a><", "a = ? AND v > ? AND v <= ?", (":name", "name010", "name020"),
     lambda r: EQ(r.a, ":name") and GT(r.v, "name010") and LE(r.v, "name020")),
    ("3:avet a><", "a = ? AND v > ? AND v < ?", (":score", 10, 12.5),
     lambda r: EQ(r.a, ":score") and GT(r.v, 10) and LT(r.v, 12.5)),
    # references
    ("4:vaet vt", "v = ? AND vtype = 'ref'", (":p1",),
     lambda r: EQ(r.v, ":p1") and r.vtype == "ref"),
    ("4:vaet vt", "v = ? AND vtype = 'ref'", (5,), lambda r: EQ(r.v, 5) and r.vtype == "ref"),
    ("4:vaet vt", "v = ? AND vtype = 'ref'", (UUID_A,),
     lambda r: EQ(r.v, UUID_A) and r.vtype == "ref"),
    ("4:vaet vt", "v = ? AND vtype = 'ref'", (5.0,), lambda r: EQ(r.v, 5.0) and r.vtype == "ref"),
    ("4:vaet vt", "v = ? AND vtype = 'string'", (":p1",),
     lambda r: EQ(r.v, ":p1") and r.vtype == "string"),
    ("4:vaet vt", "v = ? AND vtype = 'integer'", (10,),
     lambda r: EQ(r.v, 10) and r.vtype == "integer"),
    # no index helps
    ("0:scan ", "v = ?", (1,), lambda r: EQ(r.v, 1)),
    ("0:scan ", "v > ?", ("z",), lambda r: GT(r.v, "z")),
    ("0:scan ", "vtype = ?", ("uuid",), lambda r: r.vtype == "uuid"),
    # entity ids given as REAL: SQLite compares 4.0 = 4 as equal
    ("1:eavt e", "e = ?", (5.0,), lambda r: EQ(r.e, 5.0)),
    # more combinations
    ("2:aevt a", "a IN (?, ?)", (":age", ":active"), lambda r: r.a in (":age", ":active")),
    ("1:eavt e", "e = ? AND v > ?", (":all", "a"), lambda r: EQ(r.e, ":all") and GT(r.v, "a")),
    ("1:eavt ea", "e = ? AND a = ? AND v < ?", (":all", ":mixed", 0),
     lambda r: EQ(r.e, ":all") and EQ(r.a, ":mixed") and LT(r.v, 0)),
    ("2:aevt a", "a = ? AND v IS NULL", (":mixed",), lambda r: EQ(r.a, ":mixed") and r.v is None),
    ("3:avet av", "a = ? AND v = ? AND v > ?", (":age", 5, 4),
     lambda r: EQ(r.a, ":age") and EQ(r.v, 5)),
    # collations: an index may only serve BINARY comparisons (plan not pinned: any is fine)
    pytest.param(None, "a = ? AND v = ? COLLATE NOCASE", (":name", "NAME007"),
     lambda r: EQ(r.a, ":name") and EQ(r.v.lower(), "name007")),
    pytest.param(None, "a = ? AND v = ? COLLATE NOCASE", (":mixed", "z"),
     lambda r: EQ(r.a, ":mixed") and isinstance(r.v, str) and r.v.lower() == "z"),
    pytest.param(None, "a = ? AND v = ? COLLATE RTRIM", (":name", "name007  "),
     lambda r: EQ(r.a, ":name") and EQ(r.v, "name007")),
    (None, "a = ? AND v >= ? COLLATE NOCASE", (":mixed", "Z"),
     lambda r: EQ(r.a, ":mixed") and isinstance(r.v, str) and r.v.lower().encode() >= b"z"
     or EQ(r.a, ":mixed") and isinstance(r.v, bytes)),
    pytest.param(None, "e = ? COLLATE NOCASE", (":P7",), lambda r: EQ(r.e, ":p7")),
    pytest.param(None, "e = ? AND a = ? COLLATE NOCASE", (":p7", ":AGE"),
     lambda r: EQ(r.e, ":p7") and EQ(r.a, ":age")),
    pytest.param(None, "v = ? COLLATE NOCASE AND vtype = 'ref'", (":P1",),
     lambda r: isinstance(r.v, str) and r.v.lower() == ":p1" and r.vtype == "ref"),
]


def _shape_id(shape):
    values = shape.values if hasattr(shape, "values") else shape  # a pytest.param or a tuple
    return f"{values[1]} {values[2]!r:.60}"


@pytest.mark.parametrize("plan, where, params, predicate", SHAPES,
                         ids=[_shape_id(s) for s in SHAPES])
def test_plan_and_rows(graph, plan, where, params, predicate):
    sql = f"SELECT e, a, v, vtype FROM g WHERE {where}"
    if plan is not None:
        assert plan_of(graph, sql, params) == [f"SCAN g VIRTUAL TABLE INDEX {plan}"]
    got = counted(Row(*r) for r in rows(graph, sql, params))
    by_python = counted(r for r in full_scan(graph) if predicate(r))
    by_sqlite = counted(
        Row(*r) for r in rows(graph, f"SELECT e, a, v, vtype FROM g WHERE {unindexed(where)}",
                              params))
    assert by_python == by_sqlite, "the Python oracle disagrees with SQLite"
    assert got == by_python


def test_dataset_is_what_the_shapes_assume(graph):
    assert rows(graph, "SELECT count(*) FROM g WHERE a = ':mixed' AND e = ':all'") == [
        (len(MIXED),)]
    assert rows(graph, "SELECT count(DISTINCT vtype) FROM g") == [(10,)]


def test_join_uses_the_index_for_the_inner_table(graph):
    sql = ("SELECT p.e, f.v FROM g AS p JOIN g AS f ON f.e = p.e "
           "WHERE p.a = ':age' AND p.v = 7 AND f.a = ':friend'")
    plan = plan_of(graph, sql, ())
    assert plan == ["SCAN p VIRTUAL TABLE INDEX 3:avet av",
                    "SCAN f VIRTUAL TABLE INDEX 1:eavt ea"]
    assert rows(graph, sql + " ORDER BY 1") == [(":p7", ":p8"), (":p97", ":p98")]


def test_join_with_an_ordinary_table(graph):
    graph.execute("CREATE TEMP TABLE wanted(who TEXT PRIMARY KEY, note TEXT)")
    graph.executemany("INSERT INTO wanted VALUES (?, ?)",
                      [(":p3", "three"), (":p5", "five"), (":nobody", "none")])
    sql = ("SELECT w.note, g.v FROM wanted AS w JOIN g ON g.e = w.who AND g.a = ':name' "
           "ORDER BY w.note")
    assert rows(graph, sql) == [("five", "name005"), ("three", "name003")]
    graph.execute("DROP TABLE wanted")


def test_order_by_and_limit_are_applied_by_sqlite(graph):
    assert rows(graph, "SELECT v FROM g WHERE a = ':age' AND v > 85 ORDER BY v DESC LIMIT 3") == [
        (100,), (89,), (88,)]
