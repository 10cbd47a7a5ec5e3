"""An index of an older key layout (format 2) beside a database whose log a format-2 build wrote:
the current build reads the old log rows, rebuilds the index in its own layout, and answers every
query as the old build did. The fixture and the old build's answers: fixtures/README.md.

Indexes of formats 4, 5 and 6 are made from this build's own index with raw LMDB, undoing what
each later format changed: format 7 shares ident records among names and among ids (format 6 has
one record per name and per id), format 6 ended each record's data with a check byte (format 5 has none:
read as this build's, every record would look damaged), format 5 keyed ident names by their
length first (format 4 did not: no name would be found)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import EXT, rows_in_child
from raw_lmdb import RawIndex

CURRENT = 7  # the index format this build writes (DATALOG_FORMAT_VERSION)
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def answers(db):
    out = subprocess.run([sys.executable, os.path.join(FIXTURES, "v2_answers.py"), EXT, str(db)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def stats(db):
    return json.loads(rows_in_child(db, "SELECT datalog_stats('g')")[0][0])


@pytest.fixture
def expected():
    with open(os.path.join(FIXTURES, "v2-expected.json")) as f:
        return json.load(f)


def test_a_format_2_index_is_rebuilt_in_the_current_layout(tmp_path, expected):
    shutil.copy(os.path.join(FIXTURES, "v2.db"), tmp_path / "v2.db")
    shutil.copy(os.path.join(FIXTURES, "v2.mdb"), tmp_path / "v2.db-g.graph")
    assert answers(tmp_path / "v2.db") == expected
    s = stats(tmp_path / "v2.db")
    assert (s["index_format"], s["log_rows"], s["indexed_rows"]) == (CURRENT, 11, 11)


def test_the_format_2_log_alone_gives_the_same_answers(tmp_path, expected):
    shutil.copy(os.path.join(FIXTURES, "v2.db"), tmp_path / "v2.db")
    assert answers(tmp_path / "v2.db") == expected
    assert stats(tmp_path / "v2.db")["index_format"] == CURRENT


# --- formats 4 and 5, made from this build's index ---------------------------------------------

CHECKED_TABLES = [b"eavt", b"aevt", b"avet", b"vaet", b"ident_names", b"ident_ids", b"txlog", b"giants"]


def _as_older_format(graph_path, version):
    """Rewrites this build's index in place into what a build of format `version` (4 or 5) wrote:
    no check byte at the end of any record's data, for 4 also each ident name's key without its
    leading length byte, and the meta format. Returns the ident names moved."""
    index = RawIndex(graph_path)
    for table in CHECKED_TABLES:
        index.replace(table, [(key, data[:-1]) for key, data in index.entries(table)])
    names = 0
    if version == 4:
        entries = index.entries(b"ident_names")
        assert entries, "the index holds no ident names"
        for key, _ in entries:
            # The length byte of the whole name, whose last two bytes are in the data (format 7).
            assert key[0] == min(len(key) + 1, 255), key
        index.replace(b"ident_names", [(key[1:], data) for key, data in entries])
        names = len(entries)
    index.put(b"meta", b"format", bytes([0, 0, 0, version]))
    index.commit()
    return names


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
        assert [list(r[:1]) for r in rows_in_child(db, f"SELECT * FROM datalog_q('g', '{q}')")] == rows
    # The same index as a format-4 build left it: found by its old keys, not by this build's.
    assert _as_older_format(tmp_path / "v4.db-g.graph", 4) >= 8
    assert stats(db)["index_format"] == CURRENT  # rebuilt from the log on first use
    for q, rows in QUERIES.items():
        assert [list(r[:1]) for r in rows_in_child(db, f"SELECT * FROM datalog_q('g', '{q}')")] == rows


def test_a_format_5_index_is_rebuilt_with_check_bytes(tmp_path):
    db = tmp_path / "v5.db"
    _make_graph(db)
    # Records without check bytes: a format-5 index is rebuilt, not read as damaged (a query on a
    # damaged index fails once with SQLITE_CORRUPT, which rows_in_child would fail on).
    _as_older_format(tmp_path / "v5.db-g.graph", 5)
    for q, rows in QUERIES.items():
        assert [list(r[:1]) for r in rows_in_child(db, f"SELECT * FROM datalog_q('g', '{q}')")] == rows
    assert stats(db)["index_format"] == CURRENT


# --- format 6, made from this build's index ----------------------------------------------------
# Format 7 shares ident records: ident_names holds the names whose keys differ only in their last
# two bytes in one record (each name's two bytes and id), ident_ids the names of 16 consecutive ids
# in one (a 2-byte map, then each name's length and stored form). Format 6 had a record per name
# and per id. The conversion below writes that layout back, check bytes included, so the index is
# one a format-6 build could have left.

def _record_check(key, data):
    """The check byte of record_check.h: a multiply-xorshift mix over 8-byte words."""
    mask = (1 << 64) - 1

    def mix(h, b):
        for at in range(0, len(b), 8):
            word = int.from_bytes(b[at:at + 8], "little")
            h = ((h ^ word) * 0x9E3779B97F4A7C15) & mask
            h ^= h >> 32
        return h

    h = 0x243F6A8885A308D3 ^ (len(key) << 16) ^ len(data)
    h = mix(mix(h, key), data)
    h ^= h >> 29
    h = (h * 0xBF58476D1CE4E5B9) & mask
    h ^= h >> 32
    return bytes([h >> 56])


def _ordered_int(b):
    """(value, length) of the ordered integer at the start of b (key_coding.h), for the heads
    ids and id blocks use."""
    head = b[0]
    if 0x80 <= head <= 0x86:
        n = head - 0x80
        return int.from_bytes(b[1:1 + n], "big"), 1 + n
    if head == 0x87:
        return int.from_bytes(b[1:8], "big"), 8
    if 0x88 <= head <= 0x8E:
        m = head - 0x88
        return (1 << 52) + int.from_bytes(b[1:1 + m], "big"), 1 + m
    raise AssertionError(f"an id head this conversion does not know: {head:#x}")


def _as_format_6(graph_path):
    """Rewrites this build's ident tables one record per name and per id, as format 6 kept them,
    and the meta format. Returns (names, ids) written."""
    index = RawIndex(graph_path)
    names = []
    for group, data in index.entries(b"ident_names"):
        at, payload = 0, data[:-1]
        while at < len(payload):
            tail = payload[at:at + 2]
            _, n = _ordered_int(payload[at + 2:])
            key, id_bytes = group + tail, payload[at + 2:at + 2 + n]
            names.append((key, id_bytes + _record_check(key, id_bytes)))
            at += 2 + n
    ids = []
    for block_key, data in index.entries(b"ident_ids"):
        block, _ = _ordered_int(block_key)
        slots, at, payload = int.from_bytes(data[:2], "big"), 2, data[:-1]
        for slot in range(16):
            if not slots >> slot & 1:
                continue
            length, shift = 0, 0
            while True:
                byte = payload[at]
                at += 1
                length |= (byte & 0x7F) << shift
                shift += 7
                if byte < 0x80:
                    break
            stored = payload[at:at + length]
            at += length
            offset = (block << 4 | slot) - (1 << 52)
            m = (offset.bit_length() + 7) // 8
            key = bytes([0x88 + m]) + offset.to_bytes(m, "big")
            ids.append((key, stored + _record_check(key, stored)))
    index.replace(b"ident_names", sorted(names))
    index.replace(b"ident_ids", sorted(ids))
    index.put(b"meta", b"format", bytes([0, 0, 0, 6]))
    index.commit()
    return len(names), len(ids)


def test_a_format_6_index_is_rebuilt_with_shared_ident_records(tmp_path):
    db = tmp_path / "v6.db"
    _make_graph(db)
    # :e1 ... :e8 share their record with :e9.
    facts = " ".join(f"[:e{i} :n {i}]" for i in range(1, 9))
    rows_in_child(db, f"SELECT datalog_exec('g', '(transact [{facts}])')")
    graph = tmp_path / "v6.db-g.graph"
    before = RawIndex(graph)
    grouped = len(before.entries(b"ident_names"))
    # The conversion's check bytes are this build's: every record of every table agrees.
    for table in CHECKED_TABLES:
        for key, data in before.entries(table):
            assert data[-1:] == _record_check(key, data[:-1]), (table, key)
    before.commit()
    names, ids = _as_format_6(graph)
    assert names == ids == 16 and grouped == 8
    # Read as this build's layout, the per-name records would find nothing: a format-6 index is
    # rebuilt from the log on first use, and answers as before.
    for q, rows in QUERIES.items():
        assert [list(r[:1]) for r in rows_in_child(db, f"SELECT * FROM datalog_q('g', '{q}')")] == rows
    assert stats(db)["index_format"] == CURRENT
    after = RawIndex(graph)
    assert len(after.entries(b"ident_names")) == grouped
    after.commit()
