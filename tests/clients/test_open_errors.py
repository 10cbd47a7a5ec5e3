"""Opening a graph that cannot be opened: clear errors, nothing declared. The graph's facts live
in its log (shadow tables of the database); its index is an LMDB file, at a path derived from the
database and the table (app.db + g -> app.db-g.graph) unless the application names one."""
import os
import pathlib
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap

import pytest

from conftest import EXT, attempts_in_child, connect, outcomes, raises_datalog, rows


def _no_table(conn, name):
    return rows(conn, "SELECT name FROM sqlite_schema WHERE name = ?", (name,)) == []


def test_sqlite_database_file_is_not_a_graph(tmp_path):
    other = sqlite3.connect(str(tmp_path / "other.db"))
    other.execute("CREATE TABLE t(x)")
    other.commit()
    other.close()
    conn = connect(tmp_path / "app.db")
    path = tmp_path / "other.db"
    with raises_datalog(f"datalog: file '{path}' is not a graph", sqlite3.DatabaseError) as caught:
        conn.execute("CREATE VIRTUAL TABLE g USING datalog('other.db')")
    assert caught.value.sqlite_errorname == "SQLITE_NOTADB"
    assert _no_table(conn, "g")
    check = sqlite3.connect(str(path))  # the other database is untouched
    assert check.execute("SELECT count(*) FROM t").fetchall() == [(0,)]
    assert not (tmp_path / "other.db-lock").exists()


@pytest.mark.parametrize("content", ["hello world\n" * 1000, "hi"])
def test_text_file_is_not_a_graph(tmp_path, content):
    (tmp_path / "notes.graph").write_text(content)
    conn = connect(tmp_path / "app.db")
    with raises_datalog(f"datalog: file '{tmp_path / 'notes.graph'}' is not a graph",
                        sqlite3.DatabaseError):
        conn.execute("CREATE VIRTUAL TABLE g USING datalog('notes.graph')")
    assert _no_table(conn, "g")
    assert (tmp_path / "notes.graph").read_text() == content  # not overwritten


def test_failed_open_leaves_no_lock_file_behind(tmp_path):
    (tmp_path / "notes.graph").write_text("hello world\n" * 1000)
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE TABLE t(x)")
    with pytest.raises(sqlite3.DatabaseError):
        conn.execute("CREATE VIRTUAL TABLE g USING datalog('notes.graph')")
    with pytest.raises(sqlite3.DatabaseError):
        conn.execute("CREATE VIRTUAL TABLE g USING datalog('app.db')")
    assert sorted(os.listdir(tmp_path)) == ["app.db", "notes.graph"]


@pytest.mark.parametrize("database, arguments", [("new.db", "'new.db'"), ("new.db", "file='new.db'")])
def test_graph_path_that_is_the_database_file_is_refused(tmp_path, database, arguments):
    """A fresh database file is empty, so it would pass as a new graph: LMDB and SQLite would
    then both write the same file and the database is destroyed."""
    conn = connect(tmp_path / database)  # the file exists and is empty until the first write
    assert (tmp_path / database).stat().st_size == 0
    using = f"datalog({arguments})" if arguments else "datalog"
    with pytest.raises(sqlite3.Error, match=r"^datalog: .*" + re.escape(database)):
        conn.execute(f"CREATE VIRTUAL TABLE g USING {using}")
    conn.execute("CREATE TABLE t(x)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.close()
    check = sqlite3.connect(str(tmp_path / database))
    assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert check.execute("SELECT x FROM t").fetchall() == [(1,)]
    check.close()


def test_derived_index_path_that_is_a_database_file_is_refused(tmp_path):
    """The derived index path can still be a database file: database x's table g derives x-g.graph,
    which here is the (fresh, empty) main database. A database named like a graph file gets an
    index of its own name, never itself."""
    conn = connect(tmp_path / "x-g.graph")
    assert (tmp_path / "x-g.graph").stat().st_size == 0
    conn.execute(f"ATTACH '{tmp_path / 'x'}' AS aux")
    with raises_datalog(f"datalog: the graph file would be the database file itself "
                        f"('{tmp_path / 'x-g.graph'}'); name another file: "
                        "USING datalog('other.graph')", sqlite3.OperationalError):
        conn.execute("CREATE VIRTUAL TABLE aux.g USING datalog")
    assert rows(conn, "SELECT name FROM aux.sqlite_schema") == []
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")  # main.g of x-g.graph
    assert (tmp_path / "x-g.graph-g.graph").is_file()
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.execute("CREATE TABLE t(x)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.close()
    check = sqlite3.connect(str(tmp_path / "x-g.graph"))
    assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert check.execute("SELECT x FROM t").fetchall() == [(1,)]
    check.close()
    conn = connect(tmp_path / "x-g.graph")
    assert rows(conn, "SELECT e, v, tx FROM g") == [(":x", 1, 1)]


def test_empty_file_becomes_a_new_graph(tmp_path):
    (tmp_path / "empty.graph").write_bytes(b"")
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog('empty.graph')")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    assert rows(conn, "SELECT e, a, v FROM g") == [(":x", ":n", 1)]


def test_missing_directory(tmp_path):
    conn = connect(tmp_path / "app.db")
    path = tmp_path / "nodir" / "x.graph"
    with raises_datalog(f"datalog: cannot open graph '{path}': No such file or directory",
                        sqlite3.OperationalError) as caught:
        conn.execute("CREATE VIRTUAL TABLE g USING datalog('nodir/x.graph')")
    assert caught.value.sqlite_errorname == "SQLITE_CANTOPEN"
    assert _no_table(conn, "g")
    assert not (tmp_path / "nodir").exists()


def test_directory_is_not_a_graph(tmp_path):
    (tmp_path / "dir.graph").mkdir()
    conn = connect(tmp_path / "app.db")
    with raises_datalog(f"datalog: graph path '{tmp_path / 'dir.graph'}' is a directory",
                        sqlite3.OperationalError):
        conn.execute("CREATE VIRTUAL TABLE g USING datalog('dir.graph')")


def test_index_deleted_between_connections_is_rebuilt_from_the_log(tmp_path):
    """The index at the derived path holds nothing the log does not: the next connection makes
    it again and answers every fact, history included."""
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.execute("UPDATE g SET v = 2 WHERE e = ':x'")
    conn.close()
    os.remove(tmp_path / "app.db-g.graph")
    os.remove(tmp_path / "app.db-g.graph-lock")
    conn = connect(tmp_path / "app.db")
    assert rows(conn, "SELECT e, a, v, tx FROM g") == [(":x", ":n", 2, 2)]
    assert rows(conn, "SELECT v, tx FROM g WHERE as_of = 1") == [(1, 1)]
    assert (tmp_path / "app.db-g.graph").is_file()
    conn.execute("INSERT INTO g(e, a, v) VALUES (':y', ':n', 3)")
    assert rows(conn, "SELECT e, v, tx FROM g ORDER BY v") == [(":x", 2, 2), (":y", 3, 3)]


def test_named_graph_deleted_between_connections_fails_and_is_not_recreated(tmp_path):
    """A file the schema names is only made by CREATE VIRTUAL TABLE, so a reconnect after it was
    removed fails clearly instead of making a file at a name the schema chose."""
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog('people.graph')")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.close()
    os.remove(tmp_path / "people.graph")
    os.remove(tmp_path / "people.graph-lock")
    conn = connect(tmp_path / "app.db")
    path = tmp_path / "people.graph"
    with raises_datalog(f"datalog: graph file '{path}' does not exist (table main.g: only CREATE "
                        "VIRTUAL TABLE makes a new graph)", sqlite3.OperationalError) as caught:
        conn.execute("SELECT count(*) FROM g")
    assert caught.value.sqlite_errorname == "SQLITE_CANTOPEN"
    assert not path.exists() and not (tmp_path / "people.graph-lock").exists()
    assert not (tmp_path / "app.db-g.graph").exists()
    assert rows(conn, "SELECT max(tx) FROM g_log") == [(1,)]  # the log is untouched


def _make_read_only_graph(folder):
    conn = connect(folder / "ro.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.close()
    os.chmod(folder / "ro.db-g.graph", 0o444)


@pytest.mark.skipif(os.geteuid() == 0,
                    reason="running as root: access(2) ignores file modes, so a 0444 graph is "
                           "writable; test_read_only_graph_as_another_user covers it")
def test_read_only_graph(tmp_path):
    _make_read_only_graph(tmp_path)
    conn = connect(tmp_path / "ro.db")
    assert rows(conn, "SELECT e, a, v FROM g") == [(":x", ":n", 1)]
    with raises_datalog(f"datalog: graph '{tmp_path / 'ro.db-g.graph'}' is read-only",
                        sqlite3.OperationalError) as caught:
        conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)")
    assert caught.value.sqlite_errorname == "SQLITE_READONLY"
    assert rows(conn, "SELECT e, a, v FROM g") == [(":x", ":n", 1)]
    assert rows(conn, "SELECT max(tx) FROM g_log") == [(1,)]  # nothing reached the log


_READ_ONLY_CHILD = textwrap.dedent("""
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(sys.argv[2])
    for sql in ["SELECT e, a, v FROM g", "INSERT INTO g(e, a, v) VALUES (':x', ':n', 2)",
                "SELECT e, a, v FROM g", "SELECT max(tx) FROM g_log"]:
        try:
            print("OK", conn.execute(sql).fetchall())
        except sqlite3.Error as e:
            print("ERR", type(e).__name__, e.sqlite_errorname, e)
""")


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run a child as user nobody")
def test_read_only_graph_as_another_user():
    folder = tempfile.mkdtemp(prefix="datalog-ro-")
    try:
        os.chmod(folder, 0o777)
        folder_path = pathlib.Path(folder)
        _make_read_only_graph(folder_path)
        os.chmod(folder_path / "ro.db", 0o666)
        (folder_path / "child.py").write_text(_READ_ONLY_CHILD)
        # The child loads its own copy: the build folder may sit in a directory only root can
        # enter (a clone under mktemp -d, say).
        shutil.copy(EXT if EXT.endswith(".so") else EXT + ".so", folder_path / "datalog.so")
        os.chmod(folder_path / "datalog.so", 0o755)
        run = lambda: subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
             str(folder_path / "child.py"), str(folder_path / "ro.db"), str(folder_path / "datalog")],
            capture_output=True, text=True, timeout=60)
        # The database and the index's lock file writable, the index not: reads work, writes are
        # refused, and nothing reaches the log (its one row is the first transaction's).
        os.chmod(folder_path / "ro.db-g.graph-lock", 0o666)
        out = run()
        assert out.returncode == 0, out.stderr
        graph = folder_path / "ro.db-g.graph"
        assert out.stdout.splitlines() == [
            "OK [(':x', ':n', 1)]",
            f"ERR OperationalError SQLITE_READONLY datalog: graph '{graph}' is read-only",
            "OK [(':x', ':n', 1)]",
            "OK [(1,)]",
        ]
        # Neither writable: LMDB cannot lock, and says so.
        os.chmod(folder_path / "ro.db-g.graph-lock", 0o644)
        out = run()
        message = (f"ERR OperationalError SQLITE_READONLY datalog: cannot open graph '{graph}': "
                   "Permission denied (the graph and its -lock file need write access for locking)")
        assert out.stdout.splitlines() == [message] * 3 + ["OK [(1,)]"]
    finally:
        shutil.rmtree(folder)


def _graph_of_20000_facts(folder):
    conn = connect(folder / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_exec('g', ?)",
                 ("(transact [" + " ".join(f"[{i} :n {i}]" for i in range(1, 20001)) + "])",))
    conn.close()


def _count_in_a_new_process(folder):
    """Reads the graph twice in a new process: each attempt's rows, or its error's name and text."""
    return attempts_in_child(folder / "app.db", "SELECT count(*), sum(v) FROM g")


def test_truncated_index_is_rebuilt_not_a_crash(tmp_path):
    """An index cut short (a partial copy, a full disk) was read past its end through LMDB's map:
    SIGBUS killed the host. The file's size is checked against its pages at open; at the derived
    path the index is then removed and rebuilt from the log."""
    _graph_of_20000_facts(tmp_path)
    graph = tmp_path / "app.db-g.graph"
    size = graph.stat().st_size
    for cut in (size // 2, size - 4096, 3 * 4096, 0):
        with open(graph, "r+b") as f:
            f.truncate(cut)
        os.remove(tmp_path / "app.db-g.graph-lock")
        out = _count_in_a_new_process(tmp_path)
        assert out.returncode == 0, (cut, out.returncode, out.stderr)  # not killed by SIGBUS
        assert outcomes(out) == [[(20000, sum(range(1, 20001)))]] * 2, cut
        assert graph.stat().st_size >= size // 2


def test_truncated_index_the_table_names_is_refused_and_kept(tmp_path):
    """A file the table names is the application's: a truncated one is refused, never removed."""
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog('named.graph')")
    conn.execute("INSERT INTO g(e, a, v) VALUES (1, ':n', 1)")
    conn.close()
    graph = tmp_path / "named.graph"
    size = graph.stat().st_size
    with open(graph, "r+b") as f:
        f.truncate(size // 2)
    os.remove(tmp_path / "named.graph-lock")
    out = _count_in_a_new_process(tmp_path)
    assert out.returncode == 0, out.stderr
    assert outcomes(out) == [
        ("SQLITE_CORRUPT", f"datalog: graph '{graph}' is truncated: the file has {size // 2} bytes, "
                           f"its pages need {size}")] * 2
    assert graph.stat().st_size == size // 2


def test_graph_without_its_identity_is_refused_clearly(tmp_path):
    """The uuid in g_meta names the graph an index belongs to: a table whose meta row or meta table
    is gone is refused, with the table named, instead of being opened with some index."""
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':x', ':n', 1)")
    conn.execute("DELETE FROM g_meta WHERE key = 'uuid'")
    conn.close()
    conn = connect(tmp_path / "app.db")
    with raises_datalog("datalog: graph table main.g has no uuid in g_meta"):
        conn.execute("SELECT * FROM g")
    conn.execute("DROP TABLE g_meta")
    conn.close()
    conn = connect(tmp_path / "app.db")
    with raises_datalog("datalog: cannot read the graph's identity of graph table main.g: "
                        "no such table: main.g_meta"):
        conn.execute("SELECT * FROM g")
