"""Raw LMDB access to an index file through ctypes (Debian's liblmdb), for tests that must write
what no build of the extension writes: records of an older format, or records damaged in place
as a failing disk would leave them."""
import ctypes

MDB_NOSUBDIR = 0x4000
MDB_FIRST, MDB_NEXT = 0, 8


class _Val(ctypes.Structure):
    _fields_ = [("mv_size", ctypes.c_size_t), ("mv_data", ctypes.c_void_p)]


class RawIndex:
    """One write transaction on an index file: read a table whole, write it back changed."""

    def __init__(self, path):
        self.lmdb = ctypes.CDLL("liblmdb.so.0")
        self.env, self.txn = ctypes.c_void_p(), ctypes.c_void_p()
        assert self.lmdb.mdb_env_create(ctypes.byref(self.env)) == 0
        self.lmdb.mdb_env_set_maxdbs(self.env, 16)
        assert self.lmdb.mdb_env_set_mapsize(self.env, ctypes.c_size_t(1 << 30)) == 0
        assert self.lmdb.mdb_env_open(self.env, str(path).encode(), MDB_NOSUBDIR, 0o644) == 0
        assert self.lmdb.mdb_txn_begin(self.env, None, 0, ctypes.byref(self.txn)) == 0

    def _dbi(self, table):
        dbi = ctypes.c_uint()
        assert self.lmdb.mdb_dbi_open(self.txn, table, 0, ctypes.byref(dbi)) == 0
        return dbi

    def entries(self, table):
        """Every (key, data) of table, in key order."""
        cursor = ctypes.c_void_p()
        assert self.lmdb.mdb_cursor_open(self.txn, self._dbi(table), ctypes.byref(cursor)) == 0
        out, k, v, op = [], _Val(), _Val(), MDB_FIRST
        while self.lmdb.mdb_cursor_get(cursor, ctypes.byref(k), ctypes.byref(v), op) == 0:
            out.append((ctypes.string_at(k.mv_data, k.mv_size), ctypes.string_at(v.mv_data, v.mv_size)))
            op = MDB_NEXT
        self.lmdb.mdb_cursor_close(cursor)
        return out

    def put(self, table, key, data):
        kb, vb = ctypes.create_string_buffer(key), ctypes.create_string_buffer(data)
        k, v = _Val(len(key), ctypes.addressof(kb)), _Val(len(data), ctypes.addressof(vb))
        assert self.lmdb.mdb_put(self.txn, self._dbi(table), ctypes.byref(k), ctypes.byref(v), 0) == 0

    def replace(self, table, entries):
        """Empties table and writes entries into it (LMDB sorts them by key)."""
        assert self.lmdb.mdb_drop(self.txn, self._dbi(table), 0) == 0
        for key, data in entries:
            self.put(table, key, data)

    def commit(self):
        assert self.lmdb.mdb_txn_commit(self.txn) == 0
        self.lmdb.mdb_env_close(self.env)
