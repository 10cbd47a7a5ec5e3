"""Damage that still decodes (issue 20): LMDB has no page checksums, so a bit flipped inside a
record used to read as another record, a wrong answer until datalog_check. Each record's data
now ends with a check byte of its key and data (lmdb_store/record_check.h), and a scan checks where
its search lands (lmdb_store/datom_scan.cpp). Each case below damages one record of a small index
in place, as a failing disk would; the first statement that reads it fails with SQLITE_CORRUPT
naming the damage, and the next one answers exactly from the index rebuilt from the log. Before
the check bytes, each case gave the wrong answer named in its comment."""

import pytest

from conftest import attempts_in_child, connect, outcomes
from raw_lmdb import RawIndex

ONE, TWO, THREE = 41, 42, 43


@pytest.fixture
def graph(tmp_path):
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute(f"SELECT datalog_exec('g', '(transact [[:e1 :n {ONE}] [:e2 :n {TWO}] [:e3 :n {THREE}]])')")
    conn.close()
    return tmp_path


def run_twice(folder, sql):
    """sql run twice by a fresh process: each attempt's rows, or its error name and message."""
    out = attempts_in_child(folder / "app.db", sql)
    assert out.returncode == 0, out.stderr
    return outcomes(out)


def damage(folder, table, change):
    """Rewrites table's records through change(key, data) -> (key, data)."""
    index = RawIndex(folder / "app.db-g.graph")
    index.replace(table, [change(key, data) for key, data in index.entries(table)])
    index.commit()


def damaged(what):
    return ("SQLITE_CORRUPT",
            f"datalog: the index is damaged ({what}); it is rebuilt from the log by the next statement")


def test_a_value_flipped_inside_an_index_key(graph):
    # e2's value 42 becomes 43 in its EAVT key (LMDB puts the key where it now sorts). Before: 43.
    damage(graph, b"eavt", lambda k, d: (k.replace(bytes([0x81, TWO]), bytes([0x81, TWO ^ 1])), d))
    assert run_twice(graph, "SELECT v FROM g WHERE e = ':e2' AND a = ':n'") == [
        damaged("an index key is malformed"), [(TWO,)]]


def test_a_flipped_check_byte(graph):
    # The key intact, the data (the check byte alone: valid forever) changed.
    damage(graph, b"avet", lambda k, d: (k, bytes([d[-1] ^ 0x10])) if bytes([0x81, ONE]) in k else (k, d))
    assert run_twice(graph, f"SELECT e FROM g WHERE a = ':n' AND v = {ONE}") == [
        damaged("an index key is malformed"), [(":e1",)]]


def test_a_key_damaged_to_sort_before_the_search(graph):
    # e3's record gets attribute byte 0x00 instead of :n's 0x01: it now sorts after e2's record and
    # before the key a search for [:e3 :n] seeks, so the search lands past it. Before: no row.
    def moved(key, data):
        if key[:2] == bytes([0x89, 0x03]):
            assert key[2:4] == bytes([0x89, 0x01]), key.hex()  # :n, the second ident
            key = key[:3] + b"\x00" + key[4:]
        return key, data
    damage(graph, b"eavt", moved)
    assert run_twice(graph, "SELECT v FROM g WHERE e = ':e3' AND a = ':n'") == [
        damaged("the key before a search's landing is damaged"), [(THREE,)]]


def test_a_key_damaged_to_sort_after_the_scan(graph):
    # e2's record moved past the end of its fact's range (attribute byte 0x02): the search lands on
    # it and the scan would end there. Before: no row.
    def moved(key, data):
        if key[:2] == bytes([0x89, 0x02]):
            key = key[:3] + b"\x02" + key[4:]
        return key, data
    damage(graph, b"eavt", moved)
    assert run_twice(graph, "SELECT v FROM g WHERE e = ':e2' AND a = ':n'") == [
        damaged("an index record is damaged"), [(TWO,)]]


def test_an_ident_name_flipped(graph):
    # ident_ids: e2's name ":e2" becomes ":e5". Before: the fact was reported about :e5.
    damage(graph, b"ident_ids", lambda k, d: (k, d.replace(b":e2", b":e5")))
    assert run_twice(graph, "SELECT e FROM g WHERE a = ':n' AND v = 42") == [
        damaged("an ident name is malformed"), [(":e2",)]]


def test_an_ident_id_flipped(graph):
    # ident_names: the name ":e3" now maps to e1's id. The record of the names :e0 ... :e9 holds
    # each one's last two key bytes (its digit and the text's end) and its id. Before: e1's fact
    # answered for :e3.
    def flipped(key, data):
        if key.endswith(b":e"):
            e1, e3 = data.index(b"1\x00") + 2, data.index(b"3\x00") + 2
            data = data[:e3] + data[e1:e1 + 2] + data[e3 + 2:]
        return key, data
    damage(graph, b"ident_names", flipped)
    assert run_twice(graph, "SELECT v FROM g WHERE e = ':e3'") == [
        damaged("an ident entry is malformed"), [(THREE,)]]


def test_a_transaction_time_flipped(graph):
    # txlog: transaction 1's time one millisecond later; every fact's tx_time and valid_from (the
    # transaction's time, left out of the keys) would read it. Before: the times were off by 1 ms.
    before = run_twice(graph, "SELECT tx_time FROM g WHERE e = ':e1'")[0]
    damage(graph, b"txlog", lambda k, d: (k, d[:7] + bytes([d[7] ^ 1]) + d[8:]))
    # The scan decoding e1's record reads the time and names the record it could not decode.
    assert run_twice(graph, "SELECT tx_time FROM g WHERE e = ':e1'") == [
        damaged("an index key is malformed"), before]


def test_a_rule_record_in_an_older_form(graph):
    # rules: the record rewritten as format 5 wrote it (tag 0x02, no check byte). An index of this
    # format is rebuilt before it is read when older, so such a record is damage. Before: it was
    # read, and any rule-shaped bytes under tag 0x02 were a rule.
    conn = connect(graph / "app.db")
    conn.execute("SELECT datalog_exec('g', '(rule [(big ?e) [?e :n ?v] [(> ?v 41)]])')")
    conn.close()
    damage(graph, b"rules", lambda k, d: (k, b"\x02" + d[1:-1]))
    query = "SELECT c1 FROM datalog_q('g', '(query [:find ?e :where (big ?e)])') ORDER BY 1"
    assert run_twice(graph, query) == [damaged("a rule record is malformed"), [(":e2",), (":e3",)]]
