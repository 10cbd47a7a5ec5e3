"""An index of an older key layout (format 2) beside a database whose log a format-2 build wrote:
the current build reads the old log rows, rebuilds the index in its own layout, and answers every
query as the old build did. The fixture and the old build's answers: fixtures/README.md.

A format-4 index (ident names keyed without their length) is made from this build's own index
with raw LMDB, since that is all format 5 changed: used as it is, no name would be found."""
import ctypes
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import EXT

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def answers(db):
    out = subprocess.run([sys.executable, os.path.join(FIXTURES, "v2_answers.py"), EXT, str(db)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def query_in_child(db, sql):
    """The rows of sql, run by a fresh process that loads the extension."""
    out = subprocess.run([sys.executable, "-c",
                          "import json, sqlite3, sys\n"
                          "c = sqlite3.connect(sys.argv[2]); c.enable_load_extension(True)\n"
                          "c.load_extension(sys.argv[1])\n"
                          "print(json.dumps([list(r) for r in c.execute(sys.argv[3]).fetchall()]))",
                          EXT, str(db), sql], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def stats(db):
    return json.loads(query_in_child(db, "SELECT datalog_stats('g')")[0][0])


@pytest.fixture
def expected():
    with open(os.path.join(FIXTURES, "v2-expected.json")) as f:
        return json.load(f)


def test_a_format_2_index_is_rebuilt_in_the_current_layout(tmp_path, expected):
    shutil.copy(os.path.join(FIXTURES, "v2.db"), tmp_path / "v2.db")
    shutil.copy(os.path.join(FIXTURES, "v2.mdb"), tmp_path / "v2.db-g.graph")
    assert answers(tmp_path / "v2.db") == expected
    s = stats(tmp_path / "v2.db")
    assert (s["index_format"], s["log_rows"], s["indexed_rows"]) == (5, 11, 11)


def test_the_format_2_log_alone_gives_the_same_answers(tmp_path, expected):
    shutil.copy(os.path.join(FIXTURES, "v2.db"), tmp_path / "v2.db")
    assert answers(tmp_path / "v2.db") == expected
    assert stats(tmp_path / "v2.db")["index_format"] == 5


# --- format 4 → 5: ident names keyed by their length first -------------------------------------

class _Val(ctypes.Structure):
    _fields_ = [("mv_size", ctypes.c_size_t), ("mv_data", ctypes.c_void_p)]


def _as_format_4(graph_path):
    """Rewrites a format-5 index in place into what a format-4 build wrote: the meta format 4 and
    each ident name's key without its leading length byte (raw LMDB through ctypes)."""
    lmdb = ctypes.CDLL("liblmdb.so.0")
    env, txn, cursor = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    names, meta = ctypes.c_uint(), ctypes.c_uint()
    assert lmdb.mdb_env_create(ctypes.byref(env)) == 0
    lmdb.mdb_env_set_maxdbs(env, 16)
    assert lmdb.mdb_env_set_mapsize(env, ctypes.c_size_t(1 << 30)) == 0
    assert lmdb.mdb_env_open(env, str(graph_path).encode(), 0x4000, 0o644) == 0  # MDB_NOSUBDIR
    assert lmdb.mdb_txn_begin(env, None, 0, ctypes.byref(txn)) == 0
    assert lmdb.mdb_dbi_open(txn, b"ident_names", 0, ctypes.byref(names)) == 0
    assert lmdb.mdb_dbi_open(txn, b"meta", 0, ctypes.byref(meta)) == 0
    assert lmdb.mdb_cursor_open(txn, names, ctypes.byref(cursor)) == 0
    entries = []
    k, v = _Val(), _Val()
    op = 0  # MDB_FIRST, then MDB_NEXT (8)
    while lmdb.mdb_cursor_get(cursor, ctypes.byref(k), ctypes.byref(v), op) == 0:
        entries.append((ctypes.string_at(k.mv_data, k.mv_size), ctypes.string_at(v.mv_data, v.mv_size)))
        op = 8
    lmdb.mdb_cursor_close(cursor)
    assert entries, "the index holds no ident names"
    assert lmdb.mdb_drop(txn, names, 0) == 0
    for key, data in entries:
        assert key[0] == min(len(key) - 1, 255), key  # the format-5 length byte
        old_key, old_data = ctypes.create_string_buffer(key[1:]), ctypes.create_string_buffer(data)
        k, v = _Val(len(key) - 1, ctypes.addressof(old_key)), _Val(len(data), ctypes.addressof(old_data))
        assert lmdb.mdb_put(txn, names, ctypes.byref(k), ctypes.byref(v), 0) == 0
    fmt_key, four = ctypes.create_string_buffer(b"format"), ctypes.create_string_buffer(b"\x00\x00\x00\x04")
    k, v = _Val(6, ctypes.addressof(fmt_key)), _Val(4, ctypes.addressof(four))
    assert lmdb.mdb_put(txn, meta, ctypes.byref(k), ctypes.byref(v), 0) == 0
    assert lmdb.mdb_txn_commit(txn) == 0
    lmdb.mdb_env_close(env)
    return len(entries)


def _make_graph(db):
    subprocess.run([sys.executable, "-c",
                    "import sqlite3, sys\n"
                    "c = sqlite3.connect(sys.argv[2], isolation_level=None); c.enable_load_extension(True)\n"
                    "c.load_extension(sys.argv[1])\n"
                    "c.execute('CREATE VIRTUAL TABLE g USING datalog')\n"
                    "c.execute(\"SELECT datalog_exec('g', '(transact [[:alice :name \\\"Alice\\\"] "
                    "[:bob :name \\\"Bob\\\"] [:e9 :n 9] [:e10 :n 10] [:e100 :n 100] "
                    "[:alice :friend :bob]])')\").fetchall()\n",
                    EXT, str(db)], check=True)


QUERIES = {
    "(query [:find ?n :where [:alice :name ?n]])": [["Alice"]],
    "(query [:find ?n :where [:alice :friend ?f] [?f :name ?n]])": [["Bob"]],
    "(query [:find ?v :where [:e10 :n ?v]])": [[10]],
    "(query [:find ?v :where [:e100 :n ?v]])": [[100]],
}


def test_a_format_4_index_is_rebuilt_with_the_names_keyed_by_length(tmp_path):
    db = tmp_path / "v4.db"
    _make_graph(db)
    for q, rows in QUERIES.items():
        assert [r[:1] for r in query_in_child(db, f"SELECT * FROM datalog_q('g', '{q}')")] == rows
    # The same index as a format-4 build left it: found by its old keys, not by this build's.
    assert _as_format_4(tmp_path / "v4.db-g.graph") >= 8
    assert stats(db)["index_format"] == 5  # rebuilt from the log on first use
    for q, rows in QUERIES.items():
        assert [r[:1] for r in query_in_child(db, f"SELECT * FROM datalog_q('g', '{q}')")] == rows
