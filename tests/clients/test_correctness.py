"""Wrong answers and silent changes found by using the Datalog surface as a demanding user would
(issue 17). Each test failed on the code before its fix."""
import sqlite3
import time

import pytest

from conftest import connect, raises_datalog, rows


@pytest.fixture
def g(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    yield conn
    conn.close()


def exec_(conn, script):
    return rows(conn, "SELECT datalog_exec('g', ?)", (script,))[0][0]


# --- item 2: a script sees its own writes, whatever the clock did meanwhile ----------------------

def test_script_query_sees_every_earlier_command(g):
    facts = " ".join(f"[{i + 1} :v {i}]" for i in range(3000))
    out = exec_(g, f"(transact [{facts}]) (transact [[:new :v -1]]) "
                   "(query [:find (count ?e) :where [?e :v _]])")
    assert out.splitlines()[-4:] == ["(count ?e)", "----------", "3001", "1 result(s) found."]
    assert rows(g, "SELECT c1 FROM datalog_q('g', '(query [:find (count ?e) :where [?e :v _]])')") \
        == [(3001,)]


def test_script_query_sees_writes_made_at_a_later_millisecond(g):
    g.create_function("sleep_ms", 1, lambda ms: time.sleep(ms / 1000) or 1)
    out = exec_(g, """(transact [[:a :v 1]])
                      (query [:find ?x :where [(sleep_ms 20) ?x]])
                      (transact [[:b :v 2]])
                      (query [:find ?e :where [?e :v 2]])""")
    assert out.splitlines()[-4:] == ["?e", "---", ":b", "1 result(s) found."]


# --- item 4: integer overflow is an error, never a wrong number ---------------------------------

@pytest.mark.parametrize("expr, call", [
    ("(+ 9223372036854775807 30)", "(+ 9223372036854775807 30)"),
    ("(- -9223372036854775808 1)", "(- -9223372036854775808 1)"),
    ("(* 4611686018427387904 2)", "(* 4611686018427387904 2)"),
    ("(abs -9223372036854775808)", "(abs -9223372036854775808)"),
    ("(quot -9223372036854775808 -1)", "(quot -9223372036854775808 -1)"),
    ("(/ -9223372036854775808 -1)", "(/ -9223372036854775808 -1)"),
    ("(inc 9223372036854775807)", "(inc 9223372036854775807)"),
    ("(dec -9223372036854775808)", "(dec -9223372036854775808)"),
])
def test_integer_overflow_fails_naming_the_call(g, expr, call):
    exec_(g, "(transact [[:a :n 1]])")
    with raises_datalog(f"datalog: integer overflow in {call}"):
        rows(g, "SELECT c1 FROM datalog_q('g', ?)", (f"(query [:find ?x :where [:a :n _] [{expr} ?x]])",))


# --- item 5: integer entity ids from 2^52 belong to idents, in Datalog as in SQL ----------------

@pytest.mark.parametrize("command", ["transact", "retract"])
def test_large_integer_entity_ids_are_refused_like_sql(g, command):
    exec_(g, "(transact [[:alice :name \"Alice\"]])")
    alice = rows(g, "SELECT c1 FROM datalog_q('g', '(query [:find ?e :where [?e :name \"Alice\"]])')")
    with raises_datalog("integer entity ids must be below 4503599627370496 (2^52)"):
        g.execute("INSERT INTO g(e, a, v) VALUES (4503599627370496, ':name', 'Mallory')")
    column = len(f"({command} [[")  # where the fact's vector starts (1-based)
    with raises_datalog(f"datalog: Invalid entity 4503599627370496 at line 1, column {column}: "
                        "integer entity ids must be below 4503599627370496 (2^52)"):
        exec_(g, f"({command} [[4503599627370496 :name \"Mallory\"]])")
    assert rows(g, "SELECT e, a, v FROM g") == [(":alice", ":name", "Alice")]
    assert alice == [(":alice",)]


# --- item 6: an attribute with a NUL byte is refused, never cut short ---------------------------

def test_attribute_with_nul_byte_is_refused(g):
    with raises_datalog("attribute must be a keyword (':name'), got ':s\\0'"):
        g.execute("INSERT INTO g(e, a, v) VALUES (':x', ':s' || char(0), 1)")
    with raises_datalog("attribute must be a keyword (':name'), got ':s\\0t'"):
        g.execute("INSERT INTO g(e, a, v) VALUES (':x', ':s' || char(0) || 't', 1)")
    assert rows(g, "SELECT count(*) FROM g") == [(0,)]


# --- item 7: INSERT may not give what the graph assigns -----------------------------------------

@pytest.mark.parametrize("column, value", [("tx", "99"), ("tx_time", "'2020-01-01'"),
                                           ("datom", "x'00'")])
def test_insert_refuses_assigned_columns(g, column, value):
    with raises_datalog("tx, tx_time and datom are assigned by the graph; INSERT may set e, a, v, "
                        "vtype, valid_from and valid_to"):
        g.execute(f"INSERT INTO g(e, a, v, {column}) VALUES (':x', ':n', 1, {value})")
    assert rows(g, "SELECT count(*) FROM g") == [(0,)]


@pytest.mark.parametrize("column", ["as_of", "valid_at"])
def test_insert_refuses_query_arguments(g, column):
    with raises_datalog("as_of and valid_at are arguments of a query, not columns to INSERT"):
        g.execute(f"INSERT INTO g(e, a, v, {column}) VALUES (':x', ':n', 1, 3)")
    g.execute("INSERT INTO g(e, a, v, tx) VALUES (':x', ':n', 1, NULL)")  # NULL gives nothing
    assert rows(g, "SELECT e, v, tx FROM g") == [(":x", 1, 1)]


# --- item 11: SQLite's own time text is a time -----------------------------------------------------

def test_sqlite_datetime_text_is_accepted_wherever_a_time_is(g):
    g.execute("INSERT INTO g(e, a, v, valid_from) VALUES (':a', ':n', 1, '2020-01-01 00:00:00')")
    g.execute("INSERT INTO g(e, a, v, vtype) VALUES (':a', ':at', '2021-06-01 12:30:00.250', 'instant')")
    assert rows(g, "SELECT v FROM g WHERE a = ':n' AND valid_at = datetime('now')") == [(1,)]
    assert rows(g, "SELECT v FROM g WHERE a = ':n' AND valid_at = '2019-12-31 23:59:59'") == []
    assert rows(g, "SELECT valid_from FROM g WHERE a = ':n'") == [("2020-01-01T00:00:00.000Z",)]
    assert rows(g, "SELECT v FROM g WHERE a = ':at'") == [("2021-06-01T12:30:00.250Z",)]
    assert rows(g, "SELECT c1 FROM datalog_q('g', '(query [:find ?v :valid-at $t :where [:a :n ?v]])', "
                   "datetime('now'))") == [(1,)]


# --- item 13: a retraction says what it did ---------------------------------------------------------

def test_retracting_facts_that_are_not_asserted_says_so(g):
    assert exec_(g, "(transact [[:a :n 1] [:a :n 2]])") == "transacted: tx 1, 2 datoms"
    assert exec_(g, "(retract [[:a :n 1] [:a :n 3]])") == \
        "retracted: tx 2, 1 datom (1 fact was not asserted: nothing to retract)"
    assert exec_(g, "(retract [[:a :n 1] [:b :n 1]])") == \
        "retracted: tx 3, 0 datoms (2 facts were not asserted: nothing to retract)"
    assert exec_(g, "(retract [[:a :n 2]])") == "retracted: tx 4, 1 datom"
    assert rows(g, "SELECT count(*) FROM g") == [(0,)]


# --- item 8: no cross product of unfiltered scans -------------------------------------------------

def test_disconnected_parts_are_filtered_before_their_product(g):
    facts = " ".join(f"[{i} :w {i}] [{i} :next {i + 1}]" for i in range(1, 3001))
    exec_(g, f"(transact [{facts}])")
    query = "(query [:find ?a ?c :where [?a :next ?b] [?c :w ?y] [(< ?y 3)] [(> ?b 2999)]])"
    steps = rows(g, "SELECT datalog_explain('g', ?)", (query,))[0][0].splitlines()
    # Each part runs with its own filter; the product of their results comes last.
    assert [s.strip().split("  ")[1] for s in steps[1:-1]] == [
        "[?a :next ?b]", "[(> ?b 2999)]", "[?c :w ?y]", "[(< ?y 3)]",
        "2 parts with no variable in common"]
    assert steps[-2].endswith("actual 4")  # the product: 2 x 2, never 3000 x 3000
    assert sorted(rows(g, "SELECT c1, c2 FROM datalog_q('g', ?)", (query,))) == [
        (2999, 1), (2999, 2), (3000, 1), (3000, 2)]


def test_an_empty_part_ends_the_query_without_a_product(g):
    facts = " ".join(f"[{i} :next {i + 1}]" for i in range(1, 3001))
    exec_(g, f"(transact [{facts}])")
    query = "(query [:find ?a :where [?a :next ?b] [?c :next ?d] [(< ?d 0)]])"
    text = rows(g, "SELECT datalog_explain('g', ?)", (query,))[0][0]
    assert "cross product" not in text
    assert max(int(line.rsplit("actual ", 1)[1]) for line in text.splitlines()[1:-1]) == 3000
    assert rows(g, "SELECT c1 FROM datalog_q('g', ?)", (query,)) == []


# --- item 14: one naming rule for :in bindings and slots ----------------------------------------

def test_in_bindings_and_slots_are_named_by_one_rule(g):
    exec_(g, '(transact [[:a :x 5] [:a :status "ok"]])')
    g.execute("""CREATE VIRTUAL TABLE q USING datalog_query(g,
        '(query [:find ?e :in ?min-x :where [?e :x ?x] [(>= ?x ?min-x)] [?e :status $expected-status]])')""")
    assert rows(g, "SELECT name, hidden FROM pragma_table_xinfo('q')") == [
        ("e", 0), ("min_x", 1), ("expected_status", 1)]
    assert rows(g, "SELECT e FROM q WHERE min_x = 3 AND expected_status = 'ok'") == [(":a",)]


# --- item 10: result limits are settings, per table and per connection ---------------------------

def test_result_limits_per_table_connection_and_query(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog(max_results=3)")
    conn.execute("SELECT datalog_exec('g', '(transact [[1 :n 1] [2 :n 2] [3 :n 3] [4 :n 4] [5 :n 5]])')")
    five = "(query [:find ?e :where [?e :n _]])"
    with raises_datalog("datalog: Max query results (3) exceeded. Raise the limit with :max-results "
                        "in the query, datalog_limit('max_results', n) on the connection, or the "
                        "store table's max_results argument (0: none)"):
        rows(conn, "SELECT c1 FROM datalog_q('g', ?)", (five,))
    assert rows(conn, "SELECT datalog_limit('max_results')") == [(None,)]
    assert rows(conn, "SELECT datalog_limit('max_results', 10)") == [(None,)]
    assert len(rows(conn, "SELECT c1 FROM datalog_q('g', ?)", (five,))) == 5
    assert "5 result(s) found." in rows(conn, "SELECT datalog_exec('g', ?)", (five,))[0][0]
    conn.execute(f"CREATE VIRTUAL TABLE q USING datalog_query(g, '{five}')")
    assert len(rows(conn, "SELECT * FROM q")) == 5
    with raises_datalog("Max query results (2) exceeded."):  # the query's own setting wins
        rows(conn, "SELECT c1 FROM datalog_q('g', '(query [:find ?e :max-results 2 :where [?e :n _]])')")
    assert rows(conn, "SELECT datalog_limit('max_results', NULL)") == [(10,)]
    with raises_datalog("Max query results (3) exceeded."):
        rows(conn, "SELECT * FROM q")
    with raises_datalog("unknown limit 'rows': expected max_results, max_derived_facts, max_memory_mb or "
                        "write_memory_mb"):
        conn.execute("SELECT datalog_limit('rows', 1)")


def test_a_query_table_follows_its_store_table_when_it_is_replaced(tmp_path):
    # A query table remembers its store table's session and limits between calls: a store table
    # dropped and made again, with other limits and other facts, must be what the next call reads.
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog(max_results=3)")
    conn.execute("SELECT datalog_exec('g', '(transact [[1 :n 1] [2 :n 2]])')")
    conn.execute("CREATE VIRTUAL TABLE q USING datalog_query(g, '(query [:find ?v :where [?e :n ?v]])')")
    assert rows(conn, "SELECT v FROM q ORDER BY v") == [(1,), (2,)]
    conn.execute("DROP TABLE g")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog(max_results=1)")
    conn.execute("SELECT datalog_exec('g', '(transact [[7 :n 7] [8 :n 8]])')")
    with raises_datalog("Max query results (1) exceeded."):
        rows(conn, "SELECT v FROM q")
    conn.execute("SELECT datalog_limit('max_results', 5)")
    assert rows(conn, "SELECT v FROM q ORDER BY v") == [(7,), (8,)]


def test_no_result_limit_lets_a_large_scan_through(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    n = 1_000_010
    conn.execute("SELECT datalog_exec('g', ?)",
                 ("(transact [" + " ".join(f"[{i} :n {i}]" for i in range(1, n + 1)) + "])",))
    scan = "(query [:find ?e :where [?e :n _]])"
    with raises_datalog("Max query results (1000000) exceeded."):  # the default: a clear error
        rows(conn, "SELECT count(*) FROM datalog_q('g', ?)", (scan,))
    conn.execute("SELECT datalog_limit('max_results', 0)")
    assert rows(conn, "SELECT count(*) FROM datalog_q('g', ?)", (scan,)) == [(n,)]


# --- item 9: EDN numbers in full ------------------------------------------------------------------

@pytest.mark.parametrize("literal, value", [("1e5", 100000.0), ("1.0e0", 1.0), ("1e308", 1e308),
                                            ("-2.5E-3", -0.0025), ("+7", 7), ("0x1F", 31),
                                            ("1.5M", 1.5), ("5N", 5)])
def test_number_literals_are_read_as_edn_writes_them(g, literal, value):
    got = rows(g, f"SELECT c1 FROM datalog_q('g', '(query [:find ?x :where [(ground {literal}) ?x]])')")
    assert got == [(value,)] and type(got[0][0]) is type(value)


@pytest.mark.parametrize("literal, message", [("1e309", "Float literal out of range: 1e309"),
                                              ("1e", "Invalid number: 1e"),
                                              ("12abc", "Invalid number: 12abc")])
def test_bad_number_literals_say_why(g, literal, message):
    with raises_datalog(f"datalog: parse error at line 1, column 34: {message}"):
        rows(g, f"SELECT c1 FROM datalog_q('g', '(query [:find ?x :where [(ground {literal}) ?x]])')")
