"""Loading the extension and the graph file a table opens (table_arguments.h)."""
import glob
import os
import sqlite3

import pytest

from conftest import EXT, connect, known_bug, load, raises_datalog, rows


def test_loads_without_an_explicit_entry_point(tmp_path):
    conn = sqlite3.connect(str(tmp_path / "app.db"))
    conn.enable_load_extension(True)
    conn.load_extension(EXT)  # sqlite3_datalog_init, found from the file name
    assert rows(conn, "SELECT datalog_version()") == [("0.1.0",)]
    conn.close()


def test_module_is_registered(tmp_path):
    conn = connect(tmp_path / "app.db")
    modules = {name for (name,) in rows(conn, "SELECT name FROM pragma_module_list")}
    assert "datalog" in modules
    functions = {name for (name,) in rows(conn, "SELECT name FROM pragma_function_list")}
    assert "datalog_version" in functions


def test_loading_twice_is_harmless(tmp_path):
    conn = connect(tmp_path / "app.db")
    load(conn)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(conn, "SELECT e, a, v FROM g") == [(":x", ":n", 1)]


def test_default_graph_is_beside_the_database(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert (tmp_path / "app.graph").is_file()
    assert (tmp_path / "app.graph-lock").is_file()
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.close()
    # Reconnecting (xConnect from the stored schema) finds the same graph.
    conn = connect(tmp_path / "app.db")
    assert rows(conn, "SELECT e, a, v FROM g") == [(":x", ":n", 1)]


def test_database_without_extension_gets_dot_graph_appended(tmp_path):
    conn = connect(tmp_path / "data")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert (tmp_path / "data.graph").is_file()


def test_relative_path_is_relative_to_the_database_folder(tmp_path, monkeypatch):
    (tmp_path / "dbdir" / "sub").mkdir(parents=True)
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    conn = connect(tmp_path / "dbdir" / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog('people.graph')")
    conn.execute("CREATE VIRTUAL TABLE h USING datalog('sub/other.graph')")
    assert (tmp_path / "dbdir" / "people.graph").is_file()
    assert (tmp_path / "dbdir" / "sub" / "other.graph").is_file()
    assert os.listdir(elsewhere) == []
    assert not (tmp_path / "dbdir" / "app.graph").exists()


def test_absolute_path_and_keyword_arguments(tmp_path):
    target = tmp_path / "abs" / "x.graph"
    target.parent.mkdir()
    conn = connect(tmp_path / "app.db")
    conn.execute("SELECT datalog_allow_graph_paths(1)")  # a graph outside the database's folder
    conn.execute(
        f"CREATE VIRTUAL TABLE g USING datalog(file='{target}', busy_timeout=100, map_size_mb=16)"
    )
    assert target.is_file()
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(conn, "SELECT e, a, v FROM g") == [(":x", ":n", 1)]


def test_double_quoted_file_argument(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute('CREATE VIRTUAL TABLE g USING datalog("dq.graph")')
    assert (tmp_path / "dq.graph").is_file()


def test_two_tables_on_one_graph_share_it(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("CREATE VIRTUAL TABLE h USING datalog(file='app.graph')")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(conn, "SELECT e, a, v FROM h") == [(":x", ":n", 1)]


def test_attached_database_gets_its_own_graph(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute(f"ATTACH '{tmp_path / 'other.db'}' AS aux")
    conn.execute("CREATE VIRTUAL TABLE aux.g USING datalog")
    assert (tmp_path / "other.graph").is_file()
    assert not (tmp_path / "app.graph").exists()


def test_drop_table_keeps_the_graph_file(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.execute("DROP TABLE g")
    assert (tmp_path / "app.graph").is_file()
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert rows(conn, "SELECT e, a, v FROM g") == [(":x", ":n", 1)]


def test_map_size_grows_past_a_small_initial_map(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog(map_size_mb=1)")
    payload = "x" * 1000
    # About 4 MB of facts in 40 transactions on a 1 MB map: the map grows between them.
    for t in range(40):
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO g(e, a, v) VALUES (?, ':blob', ?)",
                         [(t * 100 + i + 1, f"{t * 100 + i}:{payload}") for i in range(100)])
        conn.execute("COMMIT")
    assert rows(conn, "SELECT count(*) FROM g WHERE a = ':blob'") == [(4000,)]
    assert (tmp_path / "app.graph").stat().st_size > 4_000_000


@pytest.mark.parametrize(
    "arguments, message",
    [
        ("busy_timeout=abc",
         "datalog: busy_timeout must be a number of milliseconds from 0 to 2147483647, got 'abc'"),
        ("busy_timeout=-5",
         "datalog: busy_timeout must be a number of milliseconds from 0 to 2147483647, got '-5'"),
        ("map_size_mb=0", "datalog: map_size_mb must be a number from 1 to 16777216, got '0'"),
        ("map_size_mb='big'", "datalog: map_size_mb must be a number from 1 to 16777216, got 'big'"),
        ("foo=1", "datalog: unknown argument 'foo': expected file, busy_timeout, map_size_mb, "
                  "max_results or max_derived_facts"),
        (
            "'x.graph', 'y.graph'",
            "datalog: unexpected argument 'y.graph': expected key=value (file, busy_timeout, "
            "map_size_mb, max_results, max_derived_facts)",
        ),
        ("file='a.graph', file='b.graph'", "datalog: the graph file is given twice"),
        ("''", "datalog: the graph file name is empty"),
        ("FILE='x.graph'",
         "datalog: unknown argument 'FILE': expected file, busy_timeout, map_size_mb, "
         "max_results or max_derived_facts"),
        ("max_results=-1", "datalog: max_results must be a number of rows (0: no limit), got '-1'"),
        ("busy_timeout=99999999999999999999",
         "datalog: busy_timeout must be a number of milliseconds from 0 to 2147483647, got "
         "'99999999999999999999'"),
        # It fitted a long long and overflowed the deadline: BUSY at once, "after" that long.
        ("busy_timeout=9223372036854775807",
         "datalog: busy_timeout must be a number of milliseconds from 0 to 2147483647, got "
         "'9223372036854775807'"),
        ("busy_timeout=2147483648",
         "datalog: busy_timeout must be a number of milliseconds from 0 to 2147483647, got "
         "'2147483648'"),
    ],
)
def test_bad_arguments_name_the_argument(tmp_path, arguments, message):
    conn = connect(tmp_path / "app.db")
    with raises_datalog(message, sqlite3.OperationalError):
        conn.execute(f"CREATE VIRTUAL TABLE g USING datalog({arguments})")
    # Nothing was declared.
    assert rows(conn, "SELECT name FROM sqlite_schema WHERE name = 'g'") == []


@pytest.mark.parametrize("megabytes", [2**44, 99999999999999, 2**24 + 1])
def test_map_size_too_large_is_refused_naming_the_argument(tmp_path, megabytes):
    """map_size_mb is shifted into bytes: a value that overflows must be refused as an argument
    (not wrap around to another size, nor fail later with LMDB's ENOMEM)."""
    conn = connect(tmp_path / "app.db")
    with pytest.raises(sqlite3.OperationalError, match=r"^datalog: map_size_mb "):
        conn.execute(f"CREATE VIRTUAL TABLE g USING datalog(map_size_mb={megabytes})")
    assert sorted(os.listdir(tmp_path)) == ["app.db"]


def test_quoted_file_names(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g1 USING datalog('it''s.graph')")
    conn.execute("CREATE VIRTUAL TABLE g2 USING datalog('with space.graph')")
    conn.execute("CREATE VIRTUAL TABLE g3 USING datalog(file = 'a=b.graph' , busy_timeout = 10)")
    conn.execute("CREATE VIRTUAL TABLE g4 USING datalog('c=d.graph')")
    for name in ["it's.graph", "with space.graph", "a=b.graph", "c=d.graph"]:
        assert (tmp_path / name).is_file(), name


def _temp_graphs(folder):
    return sorted(os.path.basename(p) for p in glob.glob(str(folder / "datalog-*")))


def test_memory_database_gets_a_temporary_graph_removed_on_close(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    conn = connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(conn, "SELECT e, a, v FROM g") == [(":x", ":n", 1)]
    made = _temp_graphs(tmp_path)
    assert len(made) == 2, made  # datalog-XXXXXX.graph and its -lock
    assert made[0].endswith(".graph") and made[1] == made[0] + "-lock"
    conn.close()
    assert _temp_graphs(tmp_path) == []


def test_memory_database_tables_have_separate_graphs(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    conn = connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("CREATE VIRTUAL TABLE h USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(conn, "SELECT count(*) FROM h") == [(0,)]
    assert len(_temp_graphs(tmp_path)) == 4
    conn.close()
    assert _temp_graphs(tmp_path) == []


def test_temp_schema_table_gets_a_temporary_graph(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "t"))
    (tmp_path / "t").mkdir()
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE temp.g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert not (tmp_path / "app.graph").exists()
    assert len(_temp_graphs(tmp_path / "t")) == 2
    conn.close()
    assert _temp_graphs(tmp_path / "t") == []


def test_memory_database_relative_path_is_relative_to_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conn = connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog('mem.graph')")
    assert (tmp_path / "mem.graph").is_file()
    conn.close()
    assert (tmp_path / "mem.graph").is_file()  # a named graph is not temporary


def test_transaction_larger_than_the_map_is_rolled_back_and_can_be_rerun(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE TABLE plain(x)")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog(map_size_mb=1)")
    load = """WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
              INSERT INTO g(e, a, v) SELECT i, ':blob', printf('%d:%.1000c', i, 'x') FROM n"""
    graph = tmp_path / "app.graph"
    with pytest.raises(sqlite3.OperationalError) as caught:
        conn.execute(load)
    # The map grows in one step to what any transaction short of the default map needs: the
    # pages in use (1 MiB) plus 64 GiB of address space.
    assert str(caught.value) == (f"datalog: graph '{graph}' map was full; it has been grown to "
                                 "65537 MiB. The transaction was rolled back: run it again")
    assert caught.value.sqlite_errorname == "SQLITE_FULL"
    assert rows(conn, "SELECT count(*) FROM g") == [(0,)]
    conn.execute(load)  # the second attempt fits
    assert rows(conn, "SELECT count(*), min(tx), max(tx) FROM g") == [(3000, 1, 1)]
    # Inside an explicit transaction SQLite rolls the whole transaction back on SQLITE_FULL (a
    # second small graph: the first one's map has room now).
    conn.execute("CREATE VIRTUAL TABLE h USING datalog('h.graph', map_size_mb=1)")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO plain VALUES (1)")
    with pytest.raises(sqlite3.OperationalError, match="map was full"):
        conn.execute(load.replace("INTO g", "INTO h"))
    assert not conn.in_transaction
    assert rows(conn, "SELECT count(*) FROM plain") == [(0,)]
    assert rows(conn, "SELECT count(*) FROM h") == [(0,)]
    assert rows(conn, "SELECT count(*) FROM g") == [(3000,)]


def test_a_full_map_grows_in_one_step_to_what_the_transaction_needs(tmp_path):
    """A 100K-fact transaction on a 1 MiB map: one failed attempt (it failed seven times when
    the map doubled once per failure)."""
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog(map_size_mb=1)")
    script = "(transact [" + " ".join(f"[{i} :n {i}]" for i in range(1, 100_001)) + "])"
    failures = 0
    while True:
        try:
            conn.execute("SELECT datalog_exec('g', ?)", (script,))
            break
        except sqlite3.OperationalError as e:
            assert "map was full" in str(e) and failures == 0, str(e)
            failures += 1
    assert failures == 1
    assert rows(conn, "SELECT count(*) FROM g") == [(100_000,)]
