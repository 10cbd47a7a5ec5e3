"""A large log row is stored compressed (lmdb_store/log_body_codec.h, docs/STORAGE.md): a bulk
load's log takes under a third of its bytes, reads back to the same graph, marks the log as
format 2, and a damaged compressed row is an error naming the row, never a wrong graph."""
import sqlite3

import pytest

from conftest import connect, raises_datalog, rows

BULK = 5_000


def bulk_transact(conn, start=0, n=BULK):
    facts = " ".join(f"[:e{i} :val {i}]" for i in range(start, start + n))
    conn.execute("SELECT datalog_exec('g', ?)", (f"(transact [{facts}])",))


def log_rows(conn):
    return rows(conn, "SELECT seq, substr(body, 1, 1), length(body) FROM g_log ORDER BY seq")


def log_format(conn):
    return rows(conn, "SELECT value FROM g_meta WHERE key = 'format'")[0][0]


def sample(conn):
    return rows(conn, "SELECT e, v FROM g WHERE a = ':val' AND v IN (0, 1234, 4999) ORDER BY v")


EXPECTED = [(":e0", 0), (":e1234", 1234), (":e4999", 4999)]


@pytest.fixture
def db(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog()")
    yield conn
    conn.close()


def test_a_bulk_transaction_is_stored_compressed_and_reads_back(db):
    bulk_transact(db)
    [(seq, tag, stored)] = log_rows(db)
    assert (seq, tag) == (1, b"Z")
    # Each fact's records (an ident and an assertion) take about 25 bytes as they are.
    assert stored * 3 < BULK * 25
    assert log_format(db) == 2
    assert sample(db) == EXPECTED
    # The index rebuilt from the compressed row is the same graph.
    assert rows(db, "SELECT datalog_rebuild('g')") == [(1,)]
    assert sample(db) == EXPECTED
    assert rows(db, "SELECT count(*) FROM g") == [(BULK,)]


def test_a_small_transaction_is_stored_as_it_is(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':age', 30)")
    [(seq, tag, stored)] = log_rows(db)
    assert tag == b"I"  # its first record: the ident :alice
    assert stored < 100


def test_a_log_of_format_1_is_marked_2_by_its_first_compressed_row(tmp_path):
    path = tmp_path / "old.db"
    conn = connect(path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog()")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':age', 30)")
    conn.execute("UPDATE g_meta SET value = 1 WHERE key = 'format'")  # as the last build wrote it
    conn.close()
    conn = connect(path)
    conn.execute("INSERT INTO g(e, a, v) VALUES (':bob', ':age', 40)")
    assert log_format(conn) == 1  # nothing compressed yet
    # A compressed row rolled back leaves the mark as it was.
    conn.execute("BEGIN")
    bulk_transact(conn)
    conn.execute("ROLLBACK")
    assert log_format(conn) == 1
    assert [tag for _, tag, _ in log_rows(conn)] == [b"I", b"I"]
    bulk_transact(conn)
    assert log_format(conn) == 2
    assert [tag for _, tag, _ in log_rows(conn)] == [b"I", b"I", b"Z"]
    assert rows(conn, "SELECT datalog_rebuild('g')") == [(3,)]
    assert sample(conn) == EXPECTED
    assert rows(conn, "SELECT v FROM g WHERE e IN (':alice', ':bob') ORDER BY v") == [(30,), (40,)]
    conn.close()


def test_a_log_of_a_newer_format_is_refused(tmp_path):
    path = tmp_path / "new.db"
    conn = connect(path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog()")
    conn.execute("UPDATE g_meta SET value = 3 WHERE key = 'format'")
    conn.close()
    conn = connect(path)
    with raises_datalog("graph table main.g: its log g_log is of format 3, which this build of "
                        "sqlite-datalog cannot read (it reads formats 1 to 2)"):
        conn.execute("SELECT count(*) FROM g").fetchall()
    conn.close()


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_a_damaged_compressed_row_is_an_error_naming_it(db, damage):
    db.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':age', 30)")
    bulk_transact(db)
    [(body,)] = rows(db, "SELECT body FROM g_log WHERE seq = 2")
    assert body[:1] == b"Z"
    if damage == "flip":
        damaged = body[:len(body) // 2] + bytes([body[len(body) // 2] ^ 0x10]) + body[len(body) // 2 + 1:]
        says = "row 2 has a compressed body that does not decompress (or fails its checksum)"
    else:
        damaged = body[:-10]
        says = "row 2 has a compressed body that is not one whole frame"
    db.execute("UPDATE g_log SET body = ? WHERE seq = 2", (damaged,))
    with raises_datalog("the graph's log is damaged: " + says):
        db.execute("SELECT datalog_rebuild('g')").fetchall()
    with raises_datalog("the graph's log is damaged: " + says):
        db.execute("SELECT datalog_check('g')").fetchall()
