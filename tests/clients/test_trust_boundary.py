"""The trust boundary (README, "Threat model"): a database or graph file from someone else can
make the extension run only what SQLite lets a schema run, open graphs only beside the database,
and create nothing by being inspected. Each test is an attack that worked before the fix.

The sqlite3 shell is the victim where the attack needs its file functions (writefile, readfile:
direct-only, as SQLite's shell registers them); Python (Debian's /usr/bin/python3) elsewhere.
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from conftest import EXT, connect, raises_datalog, rows

SHELL = shutil.which("sqlite3")
needs_shell = pytest.mark.skipif(SHELL is None, reason="the sqlite3 shell is not installed")
TRUST = ["ON", "OFF"]


def shell(folder, database, *sql, trusted_schema="ON"):
    """Runs sql in the sqlite3 shell on database (in folder, also the working directory) as a
    victim would: extension loaded, trusted_schema set; returns (stdout, stderr)."""
    out = subprocess.run(
        [SHELL, "-bail", "-cmd", f".load {EXT}", "-cmd", f"PRAGMA trusted_schema={trusted_schema}",
         str(database), *sql],
        cwd=folder, capture_output=True, text=True, timeout=60)
    return out.stdout, out.stderr


def attacker_database(folder, *statements, name="evil.db"):
    """The attacker's database: statements run with the extension loaded, in folder."""
    conn = connect(folder / name)
    for sql in statements:
        conn.execute(sql)
    conn.close()
    return folder / name


def named_query(name, query):
    return f"CREATE VIRTUAL TABLE {name} USING datalog_query(g, '{query}')"


# --- 1. named query tables from the schema -----------------------------------------------------

@needs_shell
@pytest.mark.parametrize("trusted_schema", TRUST)
def test_schema_query_cannot_write_files(tmp_path, trusted_schema):
    evil = attacker_database(
        tmp_path, "CREATE VIRTUAL TABLE g USING datalog('x.graph')",
        named_query("q", '(query [:find ?y :where [(writefile "pwned.txt" "owned") ?y]])'))
    out, err = shell(tmp_path, evil, "SELECT * FROM q", trusted_schema=trusted_schema)
    assert out == ""
    assert ("datalog: unsafe use of SQL function writefile() in datalog_query table main.q: it is "
            "direct-only (SQLITE_DIRECTONLY)") in err
    assert not (tmp_path / "pwned.txt").exists()


@needs_shell
@pytest.mark.parametrize("trusted_schema", TRUST)
def test_schema_query_cannot_read_files(tmp_path, trusted_schema):
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret")
    evil = attacker_database(
        tmp_path, "CREATE VIRTUAL TABLE g USING datalog('x.graph')",
        named_query("q", f'(query [:find ?y :where [(readfile "{secret}") ?y]])'))
    out, err = shell(tmp_path, evil, "SELECT * FROM q", trusted_schema=trusted_schema)
    assert "the secret" not in out + err
    assert "unsafe use of SQL function readfile() in datalog_query table main.q" in err


@pytest.mark.parametrize("trusted_schema", TRUST)
def test_schema_query_cannot_load_libraries(tmp_path, trusted_schema):
    evil = attacker_database(
        tmp_path, "CREATE VIRTUAL TABLE g USING datalog('x.graph')",
        named_query("q", '(query [:find ?y :where [(load_extension "./evil_library") ?y]])'))
    conn = connect(evil)
    conn.enable_load_extension(True)  # the victim can load extensions itself
    conn.execute(f"PRAGMA trusted_schema={trusted_schema}")
    with raises_datalog("datalog: unsafe use of SQL function load_extension() in datalog_query "
                        "table main.q: it is direct-only (SQLITE_DIRECTONLY)"):
        rows(conn, "SELECT * FROM q")


def _app_connection(path, calls):
    """The victim: an application with a function of its own that has side effects (not
    innocuous, not direct-only), as an application registers one."""
    conn = connect(path)
    conn.create_function("note", 1, lambda x: calls.append(x) or len(calls))
    return conn


def test_schema_query_calls_application_functions_only_with_trusted_schema(tmp_path):
    evil = attacker_database(
        tmp_path, "CREATE VIRTUAL TABLE g USING datalog('x.graph')",
        "SELECT datalog_exec('g', '(transact [[:a :n 1]])')",
        named_query("q", '(query [:find ?y :where [?e :n ?v] [(note ?v) ?y]])'))
    calls = []
    conn = _app_connection(evil, calls)
    assert rows(conn, "SELECT * FROM q") == [(1,)]  # trusted_schema=ON: as SQLite allows
    conn.execute("PRAGMA trusted_schema=OFF")
    with raises_datalog("datalog: unsafe use of SQL function note() in datalog_query table main.q: "
                        "trusted_schema is OFF and the function is not SQLITE_INNOCUOUS"):
        rows(conn, "SELECT * FROM q")
    assert calls == [1]
    # Innocuous functions stay callable from the schema with trusted_schema=OFF.
    conn.execute(named_query("u", '(query [:find ?y :where [?e :n ?v] [(sql/abs (- ?v 3)) ?y]])'))
    assert rows(conn, "SELECT * FROM u") == [(2,)]


def test_schema_query_aggregates_and_windows_obey_trusted_schema(tmp_path):
    evil = attacker_database(
        tmp_path, "CREATE VIRTUAL TABLE g USING datalog('x.graph')",
        "SELECT datalog_exec('g', '(transact [[:a :n 1] [:b :n 2]])')",
        named_query("agg", '(query [:find (tally ?v) :where [?e :n ?v]])'),
        named_query("win", '(query [:find ?e (tally ?v :over (:order-by ?v)) :where [?e :n ?v]])'))
    calls = []

    class Tally:
        def __init__(self):
            self.n = 0

        def step(self, v):
            calls.append(v)
            self.n += 1

        def finalize(self):
            return self.n

    conn = connect(evil)
    conn.create_aggregate("tally", 1, Tally)
    assert rows(conn, "SELECT * FROM agg") == [(2,)]
    conn.execute("PRAGMA trusted_schema=OFF")
    calls.clear()
    for table in ("agg", "win"):
        with raises_datalog(f"datalog: unsafe use of SQL function tally() in datalog_query table "
                            f"main.{table}: trusted_schema is OFF"):
            rows(conn, f"SELECT * FROM {table}")
    assert calls == []


def test_datalog_typed_by_the_application_keeps_every_function(tmp_path):
    calls = []
    conn = _app_connection(tmp_path / "app.db", calls)
    conn.execute("PRAGMA trusted_schema=OFF")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_exec('g', '(transact [[:a :n 7]])')")
    query = "(query [:find ?y :where [?e :n ?v] [(note ?v) ?y]])"
    assert rows(conn, "SELECT c1 FROM datalog_q('g', ?)", (query,)) == [(1,)]
    assert "?y" in rows(conn, "SELECT datalog_exec('g', ?)", (query,))[0][0]
    # A named query of the temp schema is the connection's own, never from a file.
    conn.execute(f"CREATE VIRTUAL TABLE temp.mine USING datalog_query(g, '{query}')")
    assert rows(conn, "SELECT * FROM temp.mine") == [(3,)]
    assert calls == [7, 7, 7]


# --- 2. rules stored in a graph file ------------------------------------------------------------

@needs_shell
@pytest.mark.parametrize("trusted_schema", TRUST)
def test_stored_rule_cannot_write_files(tmp_path, trusted_schema):
    attacker_database(
        tmp_path, "CREATE VIRTUAL TABLE g USING datalog",
        """SELECT datalog_exec('g', '(transact [[:a :n 1]])
           (rule [(evil ?y) [?e :n _] [(writefile "pwned.txt" "owned") ?y]])')""",
        name="shared.db")
    out, err = shell(tmp_path, tmp_path / "shared.db",
                     "SELECT c1 FROM datalog_q('g', '(query [:find ?y :where (evil ?y)])')",
                     trusted_schema=trusted_schema)
    assert out == ""
    assert ("datalog: unsafe use of SQL function writefile() in rule 'evil' (stored in the graph): "
            "it is direct-only (SQLITE_DIRECTONLY)") in err
    assert not (tmp_path / "pwned.txt").exists()


def test_stored_rule_obeys_trusted_schema_wherever_it_is_called(tmp_path):
    calls = []
    conn = _app_connection(tmp_path / "app.db", calls)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("""SELECT datalog_exec('g', '(transact [[:a :n 1] [:a :m 2]])
        (rule [(noted ?y) [?e :n ?v] [(note ?v) ?y]])
        (rule [(outer ?y) (noted ?y)])
        (rule [(safe ?y) [?e :m ?v] [(sql/abs ?v) ?y]])')""")
    through = "(query [:find ?y :where (outer ?y)])"  # reaches the rule through another
    assert rows(conn, "SELECT c1 FROM datalog_q('g', ?)", (through,)) == [(1,)]
    conn.execute("PRAGMA trusted_schema=OFF")
    message = ("datalog: unsafe use of SQL function note() in rule 'noted' (stored in the graph): "
               "trusted_schema is OFF and the function is not SQLITE_INNOCUOUS")
    with raises_datalog(message):
        rows(conn, "SELECT c1 FROM datalog_q('g', ?)", (through,))
    with raises_datalog(message):
        conn.execute("SELECT datalog_exec('g', ?)", (through,))
    with raises_datalog(message):
        conn.execute("SELECT datalog_explain('g', ?)", (through,))
    # Rules the query does not reach are not its concern; innocuous calls are allowed.
    assert rows(conn, "SELECT c1 FROM datalog_q('g', '(query [:find ?y :where (safe ?y)])')") == [(2,)]
    assert calls == [1]


# --- 3. inspecting a schema creates nothing -----------------------------------------------------

@pytest.mark.parametrize("trusted_schema", TRUST)
@pytest.mark.parametrize("inspect", ["PRAGMA table_info(g)", ".schema", "SELECT count(*) FROM g"])
@pytest.mark.parametrize("graph", ["{elsewhere}/x.graph", "../elsewhere/x.graph"])
def test_inspecting_a_schema_creates_no_file_elsewhere(tmp_path, inspect, graph, trusted_schema):
    if inspect == ".schema" and SHELL is None:
        pytest.skip("the sqlite3 shell is not installed")
    victim = tmp_path / "victim"
    elsewhere = tmp_path / "elsewhere"
    victim.mkdir()
    elsewhere.mkdir()
    (elsewhere / "x.graph").write_bytes(b"")  # an existing empty file stays empty
    # The attacker wrote the schema with paths allowed (or by hand): the victim has not.
    attacker = connect(victim / "evil.db")
    attacker.execute("CREATE TABLE t(x)")
    attacker.execute("PRAGMA writable_schema=ON")
    attacker.execute(
        "INSERT INTO sqlite_schema VALUES ('table', 'g', 'g', 0, ?)",
        (f"CREATE VIRTUAL TABLE g USING datalog('{graph.format(elsewhere=elsewhere)}')",))
    attacker.close()
    if inspect == ".schema":
        out, err = shell(victim, victim / "evil.db", ".schema", trusted_schema=trusted_schema)
        assert "CREATE VIRTUAL TABLE g USING datalog" in out
    else:
        conn = connect(victim / "evil.db")
        conn.execute(f"PRAGMA trusted_schema={trusted_schema}")
        with raises_datalog("must be a file in the database's folder (no absolute path, no '..')"):
            conn.execute(inspect).fetchall()
    assert sorted(os.listdir(elsewhere)) == ["x.graph"]
    assert (elsewhere / "x.graph").stat().st_size == 0
    assert sorted(os.listdir(victim)) == ["evil.db"]


def test_connecting_never_creates_a_graph_even_in_the_folder(tmp_path):
    evil = attacker_database(tmp_path, "CREATE VIRTUAL TABLE g USING datalog('x.graph')")
    for name in ("x.graph", "x.graph-lock", "x.graph-sync"):
        os.remove(tmp_path / name)
    (tmp_path / "empty.graph").write_bytes(b"")
    conn = connect(evil)
    conn.execute("CREATE VIRTUAL TABLE h USING datalog('empty.graph')")  # CREATE may make it
    assert (tmp_path / "empty.graph").stat().st_size > 0
    conn.close()
    (tmp_path / "empty.graph").write_bytes(b"")
    os.remove(tmp_path / "empty.graph-lock")
    os.remove(tmp_path / "empty.graph-sync")
    conn = connect(evil)
    with raises_datalog(f"datalog: graph file '{tmp_path / 'x.graph'}' does not exist (table "
                        "main.g: only CREATE VIRTUAL TABLE makes a new graph)"):
        rows(conn, "PRAGMA table_info(g)")
    with raises_datalog(f"datalog: file '{tmp_path / 'empty.graph'}' is empty, not a graph (table "
                        "main.h: only CREATE VIRTUAL TABLE makes a new graph)"):
        rows(conn, "SELECT * FROM h")
    assert sorted(os.listdir(tmp_path)) == ["empty.graph", "evil.db"]
    assert (tmp_path / "empty.graph").stat().st_size == 0


@pytest.mark.parametrize("link_to", ["folder", "file"])
def test_symbolic_links_cannot_lead_out_of_the_folder(tmp_path, link_to):
    victim, outside = tmp_path / "victim", tmp_path / "outside"
    victim.mkdir()
    outside.mkdir()
    if link_to == "folder":
        os.symlink(outside, victim / "out")
        graph, message = "out/x.graph", "is outside the database's folder"
    else:
        os.symlink(outside / "x.graph", victim / "x.graph")
        graph, message = "x.graph", "is a symbolic link"
    conn = connect(victim / "app.db")
    with raises_datalog(message):
        conn.execute(f"CREATE VIRTUAL TABLE g USING datalog('{graph}')")
    assert os.listdir(outside) == []


def test_the_application_may_allow_any_path(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "db").mkdir()
    conn = connect(tmp_path / "db" / "app.db")
    with raises_datalog("to allow any path on this connection, run SELECT "
                        "datalog_allow_graph_paths(1) first"):
        conn.execute(f"CREATE VIRTUAL TABLE g USING datalog('{elsewhere}/x.graph')")
    assert rows(conn, "SELECT datalog_allow_graph_paths(1)") == [(0,)]
    conn.execute(f"CREATE VIRTUAL TABLE g USING datalog('{elsewhere}/x.graph')")
    conn.execute("CREATE VIRTUAL TABLE h USING datalog('../elsewhere/y.graph')")
    assert sorted(os.listdir(elsewhere)) == ["x.graph", "x.graph-lock", "x.graph-sync", "y.graph",
                                             "y.graph-lock", "y.graph-sync"]
    assert rows(conn, "SELECT datalog_allow_graph_paths(0)") == [(1,)]
    # No schema can switch it on: the function is direct-only.
    conn.execute("CREATE VIEW v AS SELECT datalog_allow_graph_paths(1)")
    with pytest.raises(sqlite3.OperationalError, match="unsafe use of datalog_allow_graph_paths"):
        rows(conn, "SELECT * FROM v")


# --- 4. the temp schema --------------------------------------------------------------------------

def test_temp_schema_paths_resolve_beside_the_main_database(tmp_path, monkeypatch):
    folder, cwd = tmp_path / "data", tmp_path / "cwd"
    folder.mkdir()
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    conn = connect(folder / "app.db")
    conn.execute("CREATE VIRTUAL TABLE temp.t USING datalog('t.graph')")
    assert (folder / "t.graph").is_file()
    assert os.listdir(cwd) == []


@pytest.mark.parametrize("schema", ["temp", "main"])
def test_graph_cannot_be_a_database_file_of_the_connection(tmp_path, schema):
    conn = connect(tmp_path / "new.db")  # not written yet: an empty file, or none at all
    conn.execute(f"ATTACH '{tmp_path / 'other.db'}' AS aux")
    conn.execute("CREATE TABLE aux.t(x)")
    for name in ("new.db", "other.db", "other.db-journal"):
        with raises_datalog("the graph file would be the database file itself"):
            conn.execute(f"CREATE VIRTUAL TABLE {schema}.x USING datalog('{name}')")
    conn.execute("CREATE TABLE t(x)")
    conn.close()
    check = sqlite3.connect(str(tmp_path / "new.db"))
    assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


# --- 5. an interrupted or failed autocommit write writes nothing ---------------------------------

def test_interrupted_autocommit_write_commits_nothing(tmp_path):
    conn = connect(tmp_path / "app.db", check_same_thread=False)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("CREATE VIRTUAL TABLE timing USING datalog('timing.graph')")
    script = "(transact [" + " ".join(f"[{i + 1} :n {i}]" for i in range(300_000)) + "])"
    started = time.monotonic()
    conn.execute("SELECT datalog_exec('timing', ?)", (script,))
    took = time.monotonic() - started
    # The same write again, interrupted halfway through.
    timer = threading.Timer(took / 2, conn.interrupt)
    timer.start()
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        conn.execute("SELECT datalog_exec('g', ?)", (script,)).fetchall()
    timer.join()
    assert rows(conn, "SELECT count(*) FROM g") == [(0,)]
    # The graph is intact and takes the same write afterwards.
    conn.execute("SELECT datalog_exec('g', '(transact [[1 :n 0]])')")
    assert rows(conn, "SELECT e, v, tx FROM g") == [(1, 0, 1)]


def test_interrupt_after_the_last_command_still_commits_nothing(tmp_path):
    """The interrupt comes when every command has run (from a function the script's query
    calls): SQLite will fail the statement, so the commit point must not have been reached."""
    conn = connect(tmp_path / "app.db")
    conn.create_function("interrupt_now", 0, lambda: conn.interrupt() or 1)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        conn.execute("""SELECT datalog_exec('g', '(transact [[:a :n 1]]) (transact [[:b :n 2]])
                        (query [:find ?x :where [?e :n _] [(interrupt_now) ?x]])')""").fetchall()
    assert rows(conn, "SELECT count(*) FROM g") == [(0,)]


def test_failing_autocommit_script_commits_none_of_its_commands(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    with raises_datalog("datalog: unknown predicate: 'no-such-function'"):
        conn.execute("""SELECT datalog_exec('g', '(transact [[:a :n 1]])
                        (rule [(r ?x) [?x :n _]])
                        (transact [[:b :n 2]])
                        (query [:find ?y :where [?x :n _] [(no-such-function ?x) ?y]])')""")
    assert rows(conn, "SELECT count(*) FROM g") == [(0,)]
    assert rows(conn, "SELECT datalog_rules('g')") == [("",)]
    # Each command of a script that succeeds still has its own transaction, as in Minigraf.
    out = rows(conn, """SELECT datalog_exec('g', '(transact [[:a :n 1]]) (rule [(r ?x) [?x :n _]])
                        (transact [[:b :n 2]]) (query [:find ?x :where (r ?x) :as-of 1])')""")[0][0]
    assert "transacted: tx 1, 1 datom" in out and "transacted: tx 2, 1 datom" in out
    assert "1 result(s) found." in out
    assert rows(conn, "SELECT e, tx FROM g ORDER BY tx") == [(":a", 1), (":b", 2)]


# --- 6. schema changes by other processes --------------------------------------------------------

def test_schema_change_by_another_process_keeps_datalog_working(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_exec('g', '(transact [[:a :n 1]]) (rule [(r ?x) [?x :n _]])')")
    conn.execute(named_query("q", "(query [:find ?v :where [_ :n ?v]])"))
    assert rows(conn, "SELECT * FROM q") == [(1,)]
    assert rows(conn, "SELECT count(*) FROM g") == [(1,)]  # a statement the connection keeps
    subprocess.run([sys.executable, "-c",
                    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    "c.execute('CREATE TABLE p(x)'); c.commit()", str(tmp_path / "app.db")],
                   check=True, timeout=60)
    for _ in range(2):  # and stays working, whatever is used first
        assert rows(conn, "SELECT c1 FROM datalog_q('g', '(query [:find ?v :where [_ :n ?v]])')") == [(1,)]
        assert rows(conn, "SELECT count(*) FROM g") == [(1,)]
        assert rows(conn, "SELECT c1 FROM datalog_q('g', '(query [:find ?v :where [_ :n ?v]])')") == [(1,)]
        assert rows(conn, "SELECT * FROM q") == [(1,)]
        assert rows(conn, "SELECT datalog_rules('g')") == [("(rule [(r ?x) [?x :n _]])",)]
        assert "rule: s defined" in rows(
            conn, "SELECT datalog_exec('g', '(rule [(s ?x) [?x :n _]])')")[0][0]
        assert rows(conn, "SELECT datalog_drop_rule('g', 's')") == [(1,)]
        assert rows(conn, "SELECT datalog_explain('g', '(query [:find ?x :where (r ?x)])')"
                    )[0][0].endswith("result: 1 row")


# --- what the schema's own views and triggers can reach ------------------------------------------

@pytest.mark.parametrize("use", [
    "SELECT count(*) FROM g",
    "SELECT c1 FROM datalog_q('g', '(query [:find ?v :where [_ :n ?v]])')",
    "SELECT * FROM q",
    "SELECT datalog_exec('g', '(transact [[:x :n 9]])')",
    "SELECT datalog_rules('g')",
    "SELECT datalog_allow_graph_paths(1)",
])
def test_views_and_triggers_of_a_schema_reach_no_datalog(tmp_path, use):
    evil = attacker_database(
        tmp_path, "CREATE VIRTUAL TABLE g USING datalog",
        "SELECT datalog_exec('g', '(transact [[:a :n 1]])')",
        named_query("q", "(query [:find ?v :where [_ :n ?v]])"),
        "CREATE TABLE t(x)",
        f"CREATE VIEW v AS {use}",
        f"CREATE TRIGGER tr AFTER INSERT ON t BEGIN {use}; END")
    conn = connect(evil)
    with pytest.raises(sqlite3.OperationalError, match="unsafe use of"):
        rows(conn, "SELECT * FROM v")
    with pytest.raises(sqlite3.OperationalError, match="unsafe use of"):
        conn.execute("INSERT INTO t VALUES (1)")
    assert rows(conn, "SELECT count(*) FROM g") == [(1,)]
