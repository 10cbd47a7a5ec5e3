"""datalog_check(g): the index compared with one made again from the log, record by record, and
the four indexes with each other. A sound graph answers ok; an index record the log never wrote
(put in with LMDB's own mdb_load, as damage or a forgery would) is named, with the counts that
no longer agree."""
import json
import subprocess

from conftest import connect, raises_datalog, rows


def make_graph(path):
    conn = connect(path)
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':a', ':name', 'A'), (':b', ':name', 'B')")
    conn.execute("INSERT INTO g(e, a, v, vtype) VALUES (':a', ':knows', ':b', 'ref')")
    conn.execute("UPDATE g SET v = 'AA' WHERE e = ':a' AND a = ':name'")
    conn.commit()
    return conn


def check(conn):
    return json.loads(rows(conn, "SELECT datalog_check('g')")[0][0])


def test_a_sound_graph_checks_ok(tmp_path):
    conn = make_graph(tmp_path / "c.db")
    # 2 names, 1 ref, then an update (a retraction and an assertion): 5 records in each index.
    assert check(conn) == {"ok": True, "log_rows": 3,
                           "records": {"eavt": 5, "aevt": 5, "avet": 5, "vaet": 1},
                           "problem_count": 0, "problems": []}


def test_a_record_the_log_never_wrote_is_named(tmp_path):
    conn = make_graph(tmp_path / "c.db")
    conn.close()
    index = str(tmp_path / "c.db-g.graph")
    dump = subprocess.run(["mdb_dump", "-s", "eavt", "-n", index], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    header = dump[:dump.index("HEADER=END") + 1]
    first_key = dump[len(header)].strip()
    # The same record with the value "A" (0x41) changed to "Z" (0x5a): a fact nobody asserted,
    # without the check byte its data would need (mdb_load writes empty data).
    forged = first_key.replace("0041", "005a", 1)
    assert forged != first_key
    (tmp_path / "forged.txt").write_text("\n".join(header + [" " + forged, " ", "DATA=END", ""]))
    subprocess.run(["mdb_load", "-s", "eavt", "-n", "-f", str(tmp_path / "forged.txt"), index],
                   capture_output=True, check=True)
    conn = connect(tmp_path / "c.db")
    ident = 1 << 52
    assert check(conn) == {
        "ok": False, "log_rows": 3,
        "records": {"eavt": 6, "aevt": 5, "avet": 5, "vaet": 1},
        "problem_count": 2,
        "problems": [f'eavt: [e {ident} a {ident + 1} v "Z" tx 1 op 1] (its check byte is wrong) is in '
                     'the index but not in the log',
                     "the indexes disagree: eavt holds 6 records, aevt 5, avet 5"]}
    # datalog_rebuild mends it.
    rows(conn, "SELECT datalog_rebuild('g')")
    assert check(conn)["ok"] is True


def test_not_inside_a_transaction_that_writes_the_graph(tmp_path):
    conn = make_graph(tmp_path / "c.db")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO g(e, a, v) VALUES (':c', ':name', 'C')")
    with raises_datalog("cannot check the index inside a transaction that writes the graph"):
        rows(conn, "SELECT datalog_check('g')")
    conn.execute("ROLLBACK")
    assert check(conn)["ok"] is True


def test_a_view_cannot_call_it(tmp_path):
    conn = make_graph(tmp_path / "c.db")
    conn.execute("CREATE VIEW v AS SELECT datalog_check('g') AS c")
    with raises_datalog("unsafe use of datalog_check"):
        rows(conn, "SELECT c FROM v")
