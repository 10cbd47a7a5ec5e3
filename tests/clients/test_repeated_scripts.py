"""datalog_exec keeps the parse of a script it runs again (extension/parsed_scripts.h), and
datalog_q the parse of a query (extension/parsed_queries.h). The same text run again does its work
again, against the graph as it is then: nothing of an earlier run's outcome is kept. A failing text
fails every time, and texts too large to keep, or too many to keep, run as often as they are
given."""
import time

from conftest import raises_datalog, rows


def exec_datalog(conn, script):
    """Runs script; waits a few milliseconds after it, so that a fact asserted again gets a
    valid-from of its own (LANGUAGE.md §4: two assertions in one millisecond are one window)."""
    out = conn.execute("SELECT datalog_exec('g', ?)", (script,)).fetchone()[0]
    time.sleep(0.005)
    return out


def test_a_script_run_again_writes_and_reads_the_graph_as_it_is_then(db):
    write = "(transact [[:ann :n 1]])"
    assert exec_datalog(db, write) == "transacted: tx 1, 1 datom"
    assert exec_datalog(db, write) == "transacted: tx 2, 1 datom"
    read = "(query [:find ?v :where [:ann :n ?v]])"
    assert exec_datalog(db, read) == "?v\n---\n1\n1\n2 result(s) found."
    assert exec_datalog(db, "(retract [[:ann :n 1]])") == "retracted: tx 3, 1 datom"
    assert exec_datalog(db, read) == "No results found."
    both = "(transact [[:ann :n 2]]) (query [:find ?v :where [:ann :n ?v]])"
    assert exec_datalog(db, both) == "transacted: tx 4, 1 datom\n?v\n---\n2\n1 result(s) found."
    assert exec_datalog(db, both) == "transacted: tx 5, 1 datom\n?v\n---\n2\n2\n2 result(s) found."
    assert rows(db, "SELECT tx, v FROM g WHERE e = ':ann' AND valid_at = 'any' ORDER BY tx") == [
        (4, 2), (5, 2)]


def test_a_script_run_again_follows_the_schema_as_it_is_then(db):
    write = "(transact [[:ann :age 40] [:ann :age 41]])"
    exec_datalog(db, write)
    assert rows(db, "SELECT v FROM g WHERE e = ':ann' ORDER BY v") == [(40,), (41,)]
    exec_datalog(db, "(transact [[:age :db/cardinality :db.cardinality/one]])")
    exec_datalog(db, write)
    assert rows(db, "SELECT v FROM g WHERE e = ':ann' ORDER BY v") == [(41,)]
    exec_datalog(db, "(transact [[:age :db/unique :db.unique/value]])")
    exec_datalog(db, write)
    with raises_datalog("Unique conflict: :age value 41 is already held by :ann"):
        exec_datalog(db, write.replace(":ann", ":bob"))
    assert rows(db, "SELECT e, v FROM g WHERE a = ':age' ORDER BY v") == [(":ann", 41)]


def test_a_failing_script_fails_every_time(db):
    for _ in range(3):
        with raises_datalog("datalog: parse error at line 1, column 12: Fact must have at least 3 "
                            "elements (E A V), got 2"):
            exec_datalog(db, "(transact [[:ann :n]])")
    assert rows(db, "SELECT count(*) FROM g_log") == [(0,)]


def test_large_and_many_scripts_run_each_time(db):
    """A text larger than the cache keeps (16 KiB), and more distinct texts than it holds."""
    large = "(transact [" + " ".join(f"[:e{i} :n {i}]" for i in range(2000)) + "])"
    assert len(large) > 16 * 1024
    assert exec_datalog(db, large) == "transacted: tx 1, 2000 datoms"
    assert exec_datalog(db, large) == "transacted: tx 2, 2000 datoms"
    for i in range(300):
        exec_datalog(db, f"(transact [[:many :n {i}]])")
    for i in (0, 150, 299):
        assert exec_datalog(db, f"(transact [[:many :n {i}]])") == f"transacted: tx {303 + (i > 0) + (i > 150)}, 1 datom"
    assert rows(db, "SELECT count(*) FROM g WHERE e = ':many'") == [(303,)]


def test_large_and_many_queries_answer_each_time(db):
    """datalog_q keeps queries of up to 16 KiB and 256 texts (extension/text_cache.h)."""
    exec_datalog(db, "(transact [[:ann :n 1] [:bob :n 2]])")
    large = '(query [:find ?e :where [?e :n ?v] [(!= ?v "' + "x" * (20 * 1024) + '")]])'
    for _ in range(3):
        assert rows(db, "SELECT c1 FROM datalog_q('g', ?) ORDER BY 1", (large,)) == [(":ann",), (":bob",)]
    def count_above(k):
        return rows(db, "SELECT c1 FROM datalog_q('g', ?)",
                    (f"(query [:find (count ?e) :where [?e :n ?v] [(> ?v {k})]])",))[0][0]
    for k in range(300):
        assert count_above(k - 150) == (2 if k < 151 else 1 if k == 151 else 0)
    exec_datalog(db, "(transact [[:cy :n 3]])")
    assert [count_above(k) for k in (0, 1, 2)] == [3, 2, 1]
