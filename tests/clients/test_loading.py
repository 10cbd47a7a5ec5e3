"""Loading the extension and the graph index file a table opens (table_arguments.h,
index_path.h). The graph's log lives in the table's database (shadow tables g_log, g_meta); the
index is an LMDB file, by default beside the database: app.db + table g -> app.db-g.graph."""
import ctypes
import ctypes.util
import glob
import os
import sqlite3

import pytest

from conftest import EXT, connect, load, raises_datalog, rows


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


def test_default_index_is_beside_the_database_named_after_it_and_the_table(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert (tmp_path / "app.db-g.graph").is_file()
    assert (tmp_path / "app.db-g.graph-lock").is_file()
    assert not (tmp_path / "app.graph").exists()
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.close()
    # Reconnecting (xConnect from the stored schema) finds the same graph.
    conn = connect(tmp_path / "app.db")
    assert rows(conn, "SELECT e, a, v, tx FROM g") == [(":x", ":n", 1, 1)]
    assert not (tmp_path / "app.graph").exists()


def test_database_without_extension_gets_its_index_named_after_it(tmp_path):
    conn = connect(tmp_path / "data")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert (tmp_path / "data-g.graph").is_file()
    assert not (tmp_path / "data.graph").exists()


def test_table_name_bytes_outside_letters_digits_and_underscore_are_escaped(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute('CREATE VIRTUAL TABLE "My Graph-é_2" USING datalog')
    conn.execute('INSERT INTO "My Graph-é_2"(e, a, v) VALUES (\':x\', \':n\', 1)')
    index = tmp_path / "app.db-My%20Graph%2D%C3%A9_2.graph"
    assert index.is_file()
    assert sorted(p.name for p in tmp_path.glob("*.graph")) == [index.name]
    conn.close()
    conn = connect(tmp_path / "app.db")
    assert rows(conn, 'SELECT e, v, tx FROM "My Graph-é_2"') == [(":x", 1, 1)]


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
    # named files only: no index at the derived paths
    assert not (tmp_path / "dbdir" / "app.db-g.graph").exists()
    assert not (tmp_path / "dbdir" / "app.db-h.graph").exists()


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


def test_two_tables_cannot_share_one_graph_file(tmp_path):
    """A graph belongs to one table: a second table naming the index of the first (its derived
    file, or a file the application named) is refused, declares nothing, and the first table is
    unharmed."""
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("CREATE VIRTUAL TABLE k USING datalog('k.graph')")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.execute("INSERT INTO k(e, a, v) VALUES (':y', ':n', 2)")
    for using, index, owner in [("file='app.db-g.graph'", "app.db-g.graph", "main.g"),
                                ("'k.graph'", "k.graph", "main.k")]:
        assert rows(conn, f"SELECT count(*) FROM {owner}") == [(1,)]  # the owner is open
        with raises_datalog(f"datalog: graph '{tmp_path / index}' is already the index of table "
                            f"{owner}; a graph belongs to one table", sqlite3.OperationalError):
            conn.execute(f"CREATE VIRTUAL TABLE h USING datalog({using})")
        assert rows(conn, "SELECT name FROM sqlite_schema WHERE name LIKE 'h%'") == []
    assert rows(conn, "SELECT e, v, tx FROM g") == [(":x", 1, 1)]
    assert rows(conn, "SELECT e, v, tx FROM k") == [(":y", 2, 1)]
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 3)")
    assert rows(conn, "SELECT v, tx FROM g ORDER BY v") == [(1, 1), (3, 2)]


@pytest.mark.parametrize("situation", ["owner not opened yet", "retried after a refusal",
                                       "owner dropped"])
def test_refusing_the_index_of_another_table_of_this_database_names_that_table(tmp_path,
                                                                                situation):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE k USING datalog('k.graph')")
    new_table = "k" if situation == "owner dropped" else "h"
    if situation == "retried after a refusal":
        # k just created and not used since: the first refusal names it; the failed CREATE
        # leaves k closed, and the second refusal does not.
        with raises_datalog(f"datalog: graph '{tmp_path / 'k.graph'}' is already the index of "
                            "table main.k; a graph belongs to one table", sqlite3.OperationalError):
            conn.execute("CREATE VIRTUAL TABLE h USING datalog('k.graph')")
    else:
        conn.execute("INSERT INTO k(e, a, v) VALUES (':y', ':n', 2)")
        if situation == "owner dropped":
            conn.execute("DROP TABLE k")  # the named file is kept
        conn.close()
        conn = connect(tmp_path / "app.db")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE {new_table} USING datalog('k.graph')")
    except sqlite3.OperationalError as e:
        message = str(e)
        assert message.startswith(f"datalog: graph '{tmp_path / 'k.graph'}' "), message
        assert "main.k" in message or "table k " in message, message
        assert "another database" not in message, message
    else:
        # The index of a dropped table may be taken over by the new table of its name (the old
        # graph went with its log); the index of a live table may not.
        assert situation == "owner dropped"
        assert rows(conn, "SELECT count(*) FROM k WHERE valid_at = 'any' AND as_of = 100") == [
            (0,)]


def test_a_table_created_later_does_not_take_over_a_file_another_table_named(tmp_path):
    """Table h names the file that is table g's derived path; g is created later. Either h's
    name or g's creation may be refused, but no table's graph may become unreadable."""
    conn = connect(tmp_path / "app.db")
    try:
        conn.execute("CREATE VIRTUAL TABLE h USING datalog('app.db-g.graph')")
    except sqlite3.OperationalError:
        return  # refused up front: nothing can be taken over
    conn.execute("INSERT INTO h(e, a, v) VALUES (':in-h', ':n', 1)")
    conn.close()
    conn = connect(tmp_path / "app.db")
    try:
        conn.execute("CREATE VIRTUAL TABLE g USING datalog")
        conn.execute("INSERT INTO g(e, a, v) VALUES (':in-g', ':n', 2)")
        tables = ["h", "g"]
    except sqlite3.OperationalError as e:
        assert "is the index of table h of this database" in str(e), str(e)
        tables = ["h"]
    conn.close()
    expected = {"h": [(":in-h", 1, 1)], "g": [(":in-g", 2, 1)]}
    for order in (tables, tables[::-1]):  # each table opened first in a new connection
        conn = connect(tmp_path / "app.db")
        for table in order:
            assert rows(conn, f"SELECT e, v, tx FROM {table}") == expected[table], (order, table)
        conn.close()


def test_attached_database_gets_its_own_graph(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute(f"ATTACH '{tmp_path / 'other.db'}' AS aux")
    conn.execute("CREATE VIRTUAL TABLE aux.g USING datalog")
    assert (tmp_path / "other.db-g.graph").is_file()
    assert not (tmp_path / "app.db-g.graph").exists()
    conn.execute("CREATE VIRTUAL TABLE main.g USING datalog")  # same name, its own graph
    assert (tmp_path / "app.db-g.graph").is_file()
    conn.execute("INSERT INTO aux.g(e, a, v) VALUES (':in-other', ':n', 1)")
    conn.execute("INSERT INTO main.g(e, a, v) VALUES (':in-app', ':n', 2)")
    assert rows(conn, "SELECT e, v, tx FROM aux.g") == [(":in-other", 1, 1)]
    assert rows(conn, "SELECT e, v, tx FROM main.g") == [(":in-app", 2, 1)]


def test_drop_table_drops_the_graph_and_its_derived_index(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.execute("DROP TABLE g")
    assert rows(conn, "SELECT name FROM sqlite_schema") == []  # g_log and g_meta too
    assert not (tmp_path / "app.db-g.graph").exists()
    assert not (tmp_path / "app.db-g.graph-lock").exists()
    # a new table g is a new, empty graph
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert rows(conn, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 100") == [(0,)]
    conn.execute("INSERT INTO g(e, a, v) VALUES (':y', ':n', 2)")
    assert rows(conn, "SELECT e, v, tx FROM g") == [(":y", 2, 1)]


@pytest.mark.parametrize("statement", ["DROP TABLE g", "ALTER TABLE g RENAME TO h"])
def test_drop_and_rename_leave_no_file_of_the_old_derived_index(tmp_path, statement):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.execute(statement)
    conn.close()
    assert sorted(p.name for p in tmp_path.glob("app.db-g.graph*")) == []


def test_drop_table_keeps_an_index_file_the_application_named(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog('people.graph')")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    size = (tmp_path / "people.graph").stat().st_size
    conn.execute("DROP TABLE g")
    assert rows(conn, "SELECT name FROM sqlite_schema") == []
    assert (tmp_path / "people.graph").stat().st_size == size
    # the graph itself went with its log: a new table g is empty
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    assert rows(conn, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 100") == [(0,)]
    assert (tmp_path / "people.graph").stat().st_size == size


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
    assert rows(conn, "SELECT count(*), count(DISTINCT tx), max(tx) FROM g WHERE a = ':blob'") == [
        (4000, 40, 40)]
    assert (tmp_path / "app.db-g.graph").stat().st_size > 4_000_000
    conn.close()
    conn = connect(tmp_path / "app.db")
    assert rows(conn, "SELECT count(*), sum(length(v)) FROM g WHERE a = ':blob'") == [
        (4000, sum(len(f"{i}:{payload}") for i in range(4000)))]


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
                  "max_results, max_derived_facts or max_memory_mb"),
        (
            "'x.graph', 'y.graph'",
            "datalog: unexpected argument 'y.graph': expected key=value (file, busy_timeout, "
            "map_size_mb, max_results, max_derived_facts, max_memory_mb)",
        ),
        ("file='a.graph', file='b.graph'", "datalog: the graph file is given twice"),
        ("''", "datalog: the graph file name is empty"),
        ("FILE='x.graph'",
         "datalog: unknown argument 'FILE': expected file, busy_timeout, map_size_mb, "
         "max_results, max_derived_facts or max_memory_mb"),
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
    assert not (tmp_path / "app.db-g.graph").exists()
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
    """The transaction's facts go into the index as it writes them (its reads see them), so a
    full map fails the statement itself, before SQLite commits: nothing reaches the log, and the
    transaction is run again."""
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE TABLE plain(x)")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog(map_size_mb=1)")
    load = """WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
              INSERT INTO g(e, a, v) SELECT i, ':blob', printf('%d:%.1000c', i, 'x') FROM n"""
    graph = tmp_path / "app.db-g.graph"
    with pytest.raises(sqlite3.OperationalError) as caught:
        conn.execute(load)
    # The map grows in one step to what any transaction short of the default map needs: the
    # pages in use (1 MiB) plus 64 GiB of address space.
    assert str(caught.value) == (f"datalog: graph '{graph}' map was full; it has been grown to "
                                 "65537 MiB. The transaction was rolled back: run it again")
    assert caught.value.sqlite_errorname == "SQLITE_FULL"
    assert rows(conn, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 100") == [(0,)]
    assert rows(conn, "SELECT count(*) FROM g_log") == [(0,)]
    conn.execute(load)  # the second attempt fits
    assert rows(conn, "SELECT count(*), min(tx), max(tx) FROM g") == [(3000, 1, 1)]
    # Inside an explicit transaction SQLite rolls the whole transaction back on SQLITE_FULL (a
    # second small graph: the first one's map has room now).
    conn.execute("CREATE VIRTUAL TABLE h USING datalog('h.graph', map_size_mb=1)")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO plain VALUES (1)")
    with pytest.raises(sqlite3.OperationalError, match="map was full") as caught:
        conn.execute(load.replace("INTO g", "INTO h"))
    assert caught.value.sqlite_errorname == "SQLITE_FULL"
    assert not conn.in_transaction
    assert rows(conn, "SELECT count(*) FROM plain") == [(0,)]
    assert rows(conn, "SELECT count(*) FROM h") == [(0,)]
    assert rows(conn, "SELECT count(*) FROM h_log") == [(0,)]
    assert rows(conn, "SELECT count(*) FROM g") == [(3000,)]
    # every committed fact is there for a new connection, and nothing else
    conn.close()
    conn = connect(tmp_path / "app.db")
    assert rows(conn, "SELECT count(*), min(tx), max(tx), sum(length(v)) FROM g") == [
        (3000, 1, 1, sum(len(f"{i}:") + 1000 for i in range(1, 3001)))]
    assert rows(conn, "SELECT count(*) FROM h WHERE valid_at = 'any' AND as_of = 100") == [(0,)]
    assert rows(conn, "SELECT count(*) FROM plain") == [(0,)]


def test_rebuilding_an_index_larger_than_its_map_does_not_fail_the_reader(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE TABLE plain(x)")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog(map_size_mb=1)")
    script = "(transact [" + " ".join(f"[{i} :n {i}]" for i in range(1, 100_001)) + "])"
    for attempt in range(2):  # the first one fills the 1 MiB map, which then grows
        try:
            conn.execute("SELECT datalog_exec('g', ?)", (script,))
            break
        except sqlite3.OperationalError as e:
            assert "map was full" in str(e) and attempt == 0, str(e)
    assert rows(conn, "SELECT count(*) FROM g") == [(100_000,)]
    conn.close()
    for name in ("app.db-g.graph", "app.db-g.graph-lock"):
        os.remove(tmp_path / name)
    conn = connect(tmp_path / "app.db")  # the index is rebuilt from the log at the first read
    conn.execute("BEGIN")
    conn.execute("INSERT INTO plain VALUES (1)")
    assert rows(conn, "SELECT count(*), sum(v), max(tx) FROM g") == [
        (100_000, sum(range(1, 100_001)), 1)]
    assert conn.in_transaction
    conn.execute("COMMIT")
    assert rows(conn, "SELECT x FROM plain") == [(1,)]


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


def test_plain_sqlite3_close_succeeds_after_every_kind_of_call(tmp_path):
    """Statements the extension keeps for a connection (the log's, the interrupt probe's) are
    finalized when SQLite disconnects the tables, before sqlite3_close (not close_v2, which
    Python uses) checks for statements left: it must not answer SQLITE_BUSY."""
    lib = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
    lib.sqlite3_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.sqlite3_enable_load_extension.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.sqlite3_load_extension.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.POINTER(ctypes.c_char_p)]
    lib.sqlite3_exec.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                                 ctypes.POINTER(ctypes.c_char_p)]
    lib.sqlite3_close.argtypes = [ctypes.c_void_p]
    db = ctypes.c_void_p()
    assert lib.sqlite3_open(str(tmp_path / "app.db").encode(), ctypes.byref(db)) == 0
    assert lib.sqlite3_enable_load_extension(db, 1) == 0
    err = ctypes.c_char_p()
    assert lib.sqlite3_load_extension(db, EXT.encode(), None, ctypes.byref(err)) == 0, err.value
    script = """
        CREATE VIRTUAL TABLE g USING datalog;
        SELECT datalog_exec('g', '(transact [[:a :b 1]]) (retract [[:a :b 1]])');
        SELECT datalog_explain('g', '(query [:find ?v :where [:a :b ?v]])');
        SELECT datalog_drop_rule('g', 'none');
        SELECT * FROM datalog_q('g', '(query [:find ?v :where [?e :b ?v]])');
        CREATE VIRTUAL TABLE q USING datalog_query(g, '(query [:find ?e :where [?e :b _]])');
        SELECT * FROM q;
    """
    assert lib.sqlite3_exec(db, script.encode(), None, None, ctypes.byref(err)) == 0, err.value
    assert lib.sqlite3_close(db) == 0  # SQLITE_OK, not SQLITE_BUSY (5)
