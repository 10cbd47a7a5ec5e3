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
