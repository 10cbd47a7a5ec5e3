"""datalog_import(graph, file [, format]) and datalog_export(graph, file [, format]): graph data
to and from N-Triples, Turtle, CSV, JSON Lines and EDN (transaction data; the whole history).

Every export is imported back into a fresh table and compared row for row; an EDN history
import must give an identical graph: the same log rows, so the same answers at every as_of and
valid time. Malformed input fails with the file's name and line, and leaves nothing."""
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from conftest import UNFINISHED, connect, raises_datalog, rows

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
DBR = "http://dbpedia.org/resource/"


def facts(conn, table="g", extra=""):
    return sorted(rows(conn, f"SELECT e, a, v, vtype {extra} FROM {table}"), key=repr)


def windows(conn, table="g"):
    return sorted(rows(conn, f"SELECT e, a, v, vtype, valid_from, valid_to FROM {table} "
                             "WHERE valid_at = 'any'"), key=repr)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


@pytest.fixture
def varied(db):
    """Graph g with every kind of value, refs to idents and to bare ids, a uuid entity, valid
    windows, a retraction and a schema attribute."""
    db.execute("""SELECT datalog_exec('g', '
      (transact [[:person/age :db/cardinality :db.cardinality/one]])
      (transact [[:alice :person/name "Alice \\"A\\", Esq.\\nsecond line"] [:alice :person/age 30]
                 [:alice :friend :bob] [:bob :person/name "Bob"] [:bob :score 2.5]
                 [:bob :tiny 1.0e-300] [:bob :active true] [:bob :kind :admin]
                 [:bob :born #inst "1990-05-06T07:08:09.010Z"]
                 [:bob :id #uuid "6ba7b811-9dad-11d1-80b4-00c04fd430c8"]
                 [42 :owner :alice] [42 :peer 7] [7 :name "seven"]
                 [#uuid "6ba7b810-9dad-11d1-80b4-00c04fd430c8" :name "Thing"]
                 [:alice :role "intern" {:valid-from "2020-01-01" :valid-to "2021-01-01"}]
                 [:alice :role "engineer" {:valid-from "2021-01-01"}]])
      (transact [[:alice :person/age 31]])
      (retract [[:bob :kind :admin]])')""")
    db.execute("INSERT INTO g(e, a, v) VALUES (':bob', ':photo', x'00ff10')")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':bob', ':peer', 42, 'ref')")
    db.execute("INSERT INTO g(e, a, v) VALUES (':bob', ':note', NULL)")
    db.execute("INSERT INTO g(e, a, v) VALUES (':bob', ':web', 'http://example.org/a,b')")
    return db


# --- round trips ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["out.nt", "out.ttl", "out.csv", "out.jsonl"])
def test_round_trip_facts(varied, name):
    exported = varied.execute("SELECT datalog_export('g', ?)", (name,)).fetchone()[0]
    current = facts(varied)
    assert exported == (len(current) if name.endswith(("nt", "ttl")) else len(windows(varied)))
    varied.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    imported = varied.execute("SELECT datalog_import('g2', ?)", (name,)).fetchone()[0]
    assert imported == exported
    assert facts(varied, "g2") == current
    if name.endswith(("csv", "jsonl")):  # every valid-time window, with its times
        assert windows(varied, "g2") == windows(varied)


def test_round_trip_values_exact(varied):
    varied.execute("SELECT datalog_export('g', 'out.jsonl')")
    varied.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    varied.execute("SELECT datalog_import('g2', 'out.jsonl')")
    assert rows(varied, "SELECT v FROM g2 WHERE a = ':tiny'") == [(1e-300,)]
    assert rows(varied, "SELECT v FROM g2 WHERE a = ':person/name' AND e = ':alice'") == [
        ('Alice "A", Esq.\nsecond line',)]
    assert rows(varied, "SELECT v, vtype FROM g2 WHERE a = ':photo'") == [(b"\x00\xff\x10", "bytes")]
    assert rows(varied, "SELECT e, v FROM g2 WHERE a = ':peer' ORDER BY e") == [(42, 7), (":bob", 42)]


def test_ntriples_text(varied):
    varied.execute("SELECT datalog_export('g', 'out.nt')")
    text = open(varied_path(varied, "out.nt"), encoding="utf-8").read()
    assert ('<urn:datalog:alice> <urn:datalog:person/age> '
            '"31"^^<http://www.w3.org/2001/XMLSchema#integer> .') in text
    # (transact) keeps :bob a keyword value (Minigraf's rule); a ref is written as an IRI.
    assert '<urn:datalog:alice> <urn:datalog:friend> ":bob"^^<urn:datalog:keyword> .' in text
    assert "<urn:datalog:bob> <urn:datalog:peer> <urn:datalog:id:42> ." in text
    assert ('<urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8> <urn:datalog:name> "Thing" .') in text
    assert '"Alice \\"A\\", Esq.\\nsecond line"' in text


def varied_path(conn, name):
    folder = os.path.dirname(rows(conn, "SELECT file FROM pragma_database_list WHERE name = 'main'")[0][0])
    return os.path.join(folder, name)


# --- the EDN history -------------------------------------------------------------------------------

def log_rows(conn, table):
    return rows(conn, f"SELECT seq, tx, tx_time, body FROM {table}_log ORDER BY seq")


def assert_identical(conn, a, b):
    assert log_rows(conn, b) == log_rows(conn, a)
    last = rows(conn, f"SELECT max(tx) FROM {a}_log")[0][0]
    cols = "e, a, v, vtype, tx, tx_time, valid_from, valid_to"
    for as_of in range(1, last + 1):
        for at in ("any", "2020-06-01", "2022-01-01"):
            q = f"SELECT {cols} FROM {{}} WHERE as_of = ? AND valid_at = ? ORDER BY 1, 2, 3"
            assert rows(conn, q.format(b), (as_of, at)) == rows(conn, q.format(a), (as_of, at))
    assert rows(conn, f"SELECT datalog_rules('{b}')") == rows(conn, f"SELECT datalog_rules('{a}')")
    q = "(query [:find ?n ?r :any-valid-time :where [?e :role ?r] [?e :db/tx-count ?n]])"
    assert sorted(rows(conn, "SELECT c1, c2 FROM datalog_q(?, ?)", (b, q))) == sorted(
        rows(conn, "SELECT c1, c2 FROM datalog_q(?, ?)", (a, q)))


def test_history_round_trip(varied):
    varied.execute("""SELECT datalog_exec('g', '(rule [(knows ?a ?b) [?a :friend ?b]])
                                                 (rule [(gone ?a) [?a :kind _]])')""")
    varied.execute("SELECT datalog_drop_rule('g', 'gone')")
    varied.execute("DELETE FROM g WHERE a = ':friend'")
    exported = varied.execute("SELECT datalog_export('g', 'history.edn')").fetchone()[0]
    # What the export counts: its assertion and retraction records, 25 here: 22 assertions (the
    # schema fact, 16 facts, the age 31, 4 INSERTs) and 3 retractions (the age 30 that
    # cardinality one replaced, :bob :kind, the DELETE of :friend).
    folder = os.path.dirname(rows(varied, "PRAGMA database_list")[0][2])
    with open(os.path.join(folder, "history.edn"), encoding="utf-8") as f:
        text = f.read()
    assert exported == text.count("[:assert ") + text.count("[:retract ") == 25
    varied.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    assert varied.execute("SELECT datalog_import('g2', 'history.edn')").fetchone()[0] == exported
    assert_identical(varied, "g", "g2")
    # The imported graph is a graph like any other: it takes new writes under the next counter.
    varied.execute("INSERT INTO g2(e, a, v) VALUES (':zed', ':name', 'Zed')")
    assert rows(varied, "SELECT tx FROM g2 WHERE e = ':zed'") == [(rows(varied, "SELECT max(tx) FROM g_log")[0][0] + 1,)]


def test_history_round_trip_of_a_v1_graph(tmp_path):
    shutil.copy(os.path.join(FIXTURES, "v1.db"), tmp_path / "v1.db")
    shutil.copy(os.path.join(FIXTURES, "v1.mdb"), tmp_path / "v1.graph")
    conn = connect(tmp_path / "app.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_import_v1('g', 'v1.graph')")
    conn.execute("SELECT datalog_export('g', 'h.edn')")
    conn.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    conn.execute("SELECT datalog_import('g2', 'h.edn')")
    assert_identical(conn, "g", "g2")


def test_history_goes_into_an_empty_graph_outside_a_transaction(varied):
    varied.execute("SELECT datalog_export('g', 'history.edn')")
    with raises_datalog("is a whole history, which goes into an empty graph only"):
        varied.execute("SELECT datalog_import('g', 'history.edn')")
    varied.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    varied.execute("BEGIN")
    with raises_datalog("call it outside BEGIN ... COMMIT"):
        varied.execute("SELECT datalog_import('g2', 'history.edn')")
    varied.execute("ROLLBACK")
    assert rows(varied, "SELECT count(*) FROM g2_log") == [(0,)]


# --- EDN transaction data ---------------------------------------------------------------------------

def test_edn_transaction_vectors(db, tmp_path):
    write(tmp_path / "tx.edn", """; two transactions
[[:alice :name "Alice"] {:db/id :bob :name "Bob" :age 25}
 [:alice :role "intern" {:valid-from "2020-01-01" :valid-to "2021-01-01"}]]
[[:alice :friend :bob]]
""")
    assert db.execute("SELECT datalog_import('g', 'tx.edn')").fetchone()[0] == 5
    assert rows(db, "SELECT e, a, v, tx FROM g WHERE valid_at = 'any' ORDER BY tx, e, a") == [
        (":alice", ":name", "Alice", 1), (":alice", ":role", "intern", 1),
        (":bob", ":age", 25, 1), (":bob", ":name", "Bob", 1), (":alice", ":friend", ":bob", 2)]
    assert rows(db, "SELECT valid_from, valid_to FROM g WHERE a = ':role' AND valid_at = 'any'") == [
        ("2020-01-01T00:00:00.000Z", "2021-01-01T00:00:00.000Z")]


def test_edn_many_elements_are_read_in_pieces(db, tmp_path):
    write(tmp_path / "big.edn", "[\n" + "\n".join(f"[:e{i} :n {i}]" for i in range(5000)) + "\n]\n")
    assert db.execute("SELECT datalog_import('g', 'big.edn')").fetchone()[0] == 5000
    assert rows(db, "SELECT count(*), sum(v), max(tx) FROM g") == [(5000, sum(range(5000)), 1)]


# --- the real-shaped fixture ------------------------------------------------------------------------

def test_dbpedia_shaped_ntriples(db, tmp_path):
    shutil.copy(os.path.join(FIXTURES, "people.nt"), tmp_path / "people.nt")
    db.execute("SELECT datalog_import('g', 'people.nt')")
    assert rows(db, "SELECT count(*) FROM g") == [(29,)]  # 30 triples; two labels differ in tag only
    ada = ":dbr/Ada_Quill"
    assert rows(db, "SELECT a, v, vtype FROM g WHERE e = ? ORDER BY a, v", (ada,)) == [
        (":dbo/address", rows(db, "SELECT v FROM g WHERE e = ? AND a = ':dbo/address'", (ada,))[0][0], "ref"),
        (":dbo/birthDate", "1901-04-12T00:00:00.000Z", "instant"),
        (":dbo/birthPlace", ":dbr/Port_Ellery", "ref"),
        (":dbo/numberOfPatents", 14, "integer"),
        (":foaf/name", "Ada Quill", "string"),
        (":owl/sameAs", ":wd/Q9900001", "ref"),
        (":rdf/type", ":dbo/Person", "ref"),
        (":rdfs/label", "Ada Quill", "string"),
    ]
    # The blank node is one entity (a fresh #uuid ident) wherever the file names it.
    assert rows(db, "SELECT a.v FROM g a JOIN g s ON s.e = a.v WHERE a.e = ? AND a.a = ':dbo/address' "
                    "AND s.a = ':schema/streetAddress'", (ada,)) == [(rows(db, "SELECT e FROM g WHERE a = ':schema/streetAddress'")[0][0],)]
    assert rows(db, "SELECT v, vtype FROM g WHERE e = ':dbr/Port_Ellery' AND a LIKE ':%Total' ORDER BY a") == [
        (112.5, "float"), (48210, "integer")]
    assert rows(db, "SELECT v FROM g WHERE a = ':dbo/deathDate'") == [("2001-06-30T14:05:00.000Z",)]
    assert rows(db, "SELECT v, vtype FROM g WHERE a = ':dbo/alive'") == [(0, "boolean")]
    assert rows(db, "SELECT v FROM g WHERE a = ':dbo/motto'") == [('Am Fluß "daheim"',)]
    assert rows(db, "SELECT e, v FROM g WHERE a = ':dcterms/title'") == [
        (":http://example.org/archive/item/77", "Notebook, 1921\ttyped")]
    # Datalog reads the prefixed keywords.
    q = """(query [:find ?name ?city :where [?p :rdf/type :dbo/Person] [?p :foaf/name ?name]
                   [?p :dbo/birthPlace ?c] [?c :rdfs/label ?city]])"""
    assert sorted(rows(db, "SELECT c1, c2 FROM datalog_q('g', ?)", (q,))) == [
        ("Ada Quill", "Port Ellery"), ("Bram Okafor", "Velden an der Au")]


def test_turtle_lite(db, tmp_path):
    write(tmp_path / "t.ttl", """@prefix ex: <http://example.org/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
# a comment
ex:alice a foaf:Person ;
    foaf:name "Alice"@en , "Alicia"@es ;
    foaf:age 30 ;
    ex:height 1.68 ;
    ex:member true ;
    ex:since "2020-01-01T10:00:00+02:00"^^xsd:dateTime ;
    foaf:knows ex:bob , _:anon .
_:anon foaf:name 'Someone' .
""")
    assert db.execute("SELECT datalog_import('g', 't.ttl')").fetchone()[0] == 10
    alice = ":http://example.org/alice"
    assert rows(db, "SELECT a, v, vtype FROM g WHERE e = ? AND a <> ':foaf/knows' ORDER BY a, v", (alice,)) == [
        (":foaf/age", 30, "integer"), (":foaf/name", "Alice", "string"), (":foaf/name", "Alicia", "string"),
        (":http://example.org/height", 1.68, "float"), (":http://example.org/member", 1, "boolean"),
        (":http://example.org/since", "2020-01-01T08:00:00.000Z", "instant"), (":rdf/type", ":foaf/Person", "ref")]
    assert rows(db, "SELECT count(*) FROM g WHERE e = ? AND a = ':foaf/knows'", (alice,)) == [(2,)]


def test_csv_entities_and_rfc4180(db, tmp_path):
    write(tmp_path / "people.csv", 'name,age,bio,:score\n'
                                   'alice,30,"likes ""quotes"", commas\nand lines",1.5\n'
                                   ':bob,,plain,2\n')
    assert db.execute("SELECT datalog_import('g', 'people.csv')").fetchone()[0] == 5
    assert facts(db) == sorted([
        (":alice", ":age", 30, "integer"), (":alice", ":bio", 'likes "quotes", commas\nand lines', "string"),
        (":alice", ":score", 1.5, "float"), (":bob", ":bio", "plain", "string"), (":bob", ":score", 2, "integer")],
        key=repr)


def test_csv_db_id_column(db, tmp_path):
    write(tmp_path / "e.csv", "label,:db/id\nfirst,1\nsecond,:two\n")
    db.execute("SELECT datalog_import('g', 'e.csv')")
    assert facts(db) == sorted([(1, ":label", "first", "string"), (":two", ":label", "second", "string")], key=repr)


def test_jsonl_entity_objects(db, tmp_path):
    write(tmp_path / "e.jsonl", '{":db/id": ":alice", ":name": "Alice", ":tags": ["a", "b"], ":age": 30}\n'
                                '\n'
                                '{"e": ":alice", "a": ":friend", "v": ":bob", "vtype": "ref"}\n')
    assert db.execute("SELECT datalog_import('g', 'e.jsonl')").fetchone()[0] == 5
    assert facts(db) == sorted([(":alice", ":name", "Alice", "string"), (":alice", ":tags", "a", "string"),
                                (":alice", ":tags", "b", "string"), (":alice", ":age", 30, "integer"),
                                (":alice", ":friend", ":bob", "ref")], key=repr)


# --- errors name the file and the line, and leave nothing ------------------------------------------

GOOD_NT = "".join(f"<urn:datalog:e{i}> <urn:datalog:n> \"{i}\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"
                  for i in range(5000))
GOOD_CSV = "e,a,v,vtype\n" + "".join(f":e{i},:n,{i},integer\n" for i in range(5000))
GOOD_JSONL = "".join(f'{{"e": ":e{i}", "a": ":n", "v": {i}}}\n' for i in range(5000))
GOOD_EDN = "[\n" + "".join(f"[:e{i} :n {i}]\n" for i in range(5000))

MALFORMED = [
    ("bad.nt", GOOD_NT + "<urn:datalog:x> <urn:datalog:n> <http://broken\n", 5001, "unterminated IRI"),
    ("bad.nt", GOOD_NT + '<urn:datalog:x> <urn:datalog:n> "open .\n', 5001, "unterminated string"),
    ("bad.nt", GOOD_NT + '<urn:datalog:x> <urn:datalog:n> "x"^^<http://www.w3.org/2001/XMLSchema#integer> .\n',
     5001, '"x" is not a valid xsd:integer'),
    ("bad.nt", GOOD_NT + '<urn:datalog:x> <urn:datalog:n> 1\n', 5001, "the last statement is not finished"),
    ("bad.ttl", "@prefix ex: <http://example.org/> .\n" + GOOD_NT + "ex:a nope:b 1 .\n", 5002,
     "undeclared prefix 'nope:'"),
    ("bad.ttl", GOOD_NT + '<urn:datalog:a> <urn:datalog:b> """open\nmore\n', 5001, "unterminated long string"),
    ("bad.ttl", GOOD_NT + "<urn:datalog:a> <urn:datalog:b> [ <urn:datalog:c> (\n1\n", 5001,
     "'(' is not closed (the file ends inside it)"),
    ("bad.csv", GOOD_CSV + ':x,:n,"open\n', 5002, "unterminated quoted field"),
    ("bad.csv", GOOD_CSV + ":x,:n\n", 5002, "the row has 2 fields, the header 4"),
    ("bad.csv", GOOD_CSV + ":x,:n,abc,integer\n", 5002, "'abc' is not an integer"),
    ("bad.csv", "name,n:integer\n" + "".join(f"e{i},{i}\n" for i in range(5000)) + "x,abc\n", 5002,
     "column 'n:integer': 'abc' is not an integer"),
    ("bad.jsonl", GOOD_JSONL + '{"e": ":x", "a": ":n", "v": }\n', 5001, "unexpected character '}'"),
    ("bad.jsonl", GOOD_JSONL + '[1, 2]\n', 5001, "expected a JSON object"),
    ("bad.edn", GOOD_EDN + "[:x :n 1 2 3]\n]\n", 5002, "Optional 4th element of a fact must be a map"),
    ("bad.edn", GOOD_EDN + '[:x :n "open]\n', 5002, "unterminated string"),
    ("bad.edn", GOOD_EDN + ']\n{:valid-to 1}\n[[:x :n 1]]\n', 5003, ":valid-to must be an ISO 8601 string, got 1"),
]


@pytest.mark.parametrize("name,text,line,message", MALFORMED, ids=[f"{m[0]}:{m[3]}" for m in MALFORMED])
def test_malformed_input_names_the_line_and_leaves_nothing(db, tmp_path, name, text, line, message):
    write(tmp_path / name, text)
    with pytest.raises(sqlite3.Error) as e:
        db.execute("SELECT datalog_import('g', ?)", (name,))
    assert f"datalog_import: {name} line {line}: " in str(e.value)
    assert message in str(e.value)
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]
    assert rows(db, "SELECT count(*) FROM g_log") == [(0,)]


def test_malformed_history_leaves_nothing(varied):
    varied.execute("SELECT datalog_export('g', 'h.edn')")
    path = varied_path(varied, "h.edn")
    lines = open(path, encoding="utf-8").read().split("\n")
    bad = next(i for i, l in enumerate(lines) if "[:retract" in l)
    lines[bad] = lines[bad].replace("[:retract", "[:unretract")
    write(path, "\n".join(lines))
    varied.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    with raises_datalog(f"datalog_import: h.edn line {bad + 1}: unknown record :unretract"):
        varied.execute("SELECT datalog_import('g2', 'h.edn')")
    assert rows(varied, "SELECT count(*) FROM g2_log") == [(0,)]
    assert rows(varied, "SELECT count(*) FROM g2") == [(0,)]


def test_schema_violation_fails_the_import(db, tmp_path):
    db.execute("SELECT datalog_exec('g', '(transact [[:age :db/valueType :db.type/long]])')")
    write(tmp_path / "a.csv", "e,a,v\n:x,:age,1\n:y,:age,old\n")
    with raises_datalog("datalog_import: a.csv: Wrong type for attribute :age"):
        db.execute("SELECT datalog_import('g', 'a.csv')")
    assert "line 3" in str(pytest.raises(sqlite3.Error, db.execute, "SELECT datalog_import('g', 'a.csv')").value)
    assert rows(db, "SELECT count(*) FROM g WHERE a = ':age'") == [(0,)]


def test_unknown_format_and_missing_file(db):
    with raises_datalog("cannot tell the format of 'data.txt' from its extension"):
        db.execute("SELECT datalog_import('g', 'data.txt')")
    with raises_datalog("unknown format 'xml'"):
        db.execute("SELECT datalog_import('g', 'data.txt', 'xml')")
    with raises_datalog("datalog_import: cannot open 'none.nt'"):
        db.execute("SELECT datalog_import('g', 'none.nt')")


# --- transactions and interrupts ----------------------------------------------------------------

def test_import_inside_begin_rollback_leaves_nothing(db, tmp_path):
    write(tmp_path / "a.nt", GOOD_NT)
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':mine', ':n', 1)")
    assert db.execute("SELECT datalog_import('g', 'a.nt')").fetchone()[0] == 5000
    assert rows(db, "SELECT count(*) FROM g") == [(5001,)]  # the transaction sees its import
    db.execute("ROLLBACK")
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]


def test_import_joins_the_transaction_and_a_failed_one_undoes_only_itself(db, tmp_path):
    write(tmp_path / "a.nt", GOOD_NT)
    write(tmp_path / "bad.nt", GOOD_NT + "<broken\n")
    db.execute("BEGIN")
    db.execute("INSERT INTO g(e, a, v) VALUES (':mine', ':n', 1)")
    with raises_datalog("bad.nt line 5001: unterminated IRI"):
        db.execute("SELECT datalog_import('g', 'bad.nt')")
    db.execute("SELECT datalog_import('g', 'a.nt')")
    db.execute("COMMIT")
    assert rows(db, "SELECT count(*), min(tx), max(tx) FROM g") == [(5001, 1, 1)]


def test_interrupt_leaves_nothing(db, tmp_path):
    write(tmp_path / "big.nt", GOOD_NT * 40)  # 200,000 triples (the same 5,000, asserted again)
    calls = []

    def handler():
        calls.append(1)
        return 1 if len(calls) > 50 else 0

    # Every 100 virtual-machine steps of the import's own statements: how many it runs depends on
    # how fast the machine is (a probe for interrupts runs on a timer), and 51 calls of 1,000
    # steps were more than a fast run of the whole import made.
    db.set_progress_handler(handler, 100)
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        db.execute("SELECT datalog_import('g', 'big.nt')")
    db.set_progress_handler(None, 0)
    assert len(calls) > 50
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]
    assert rows(db, "SELECT count(*) FROM g_log") == [(0,)]


def test_sqlite3_interrupt_from_another_thread(db, tmp_path):
    # 400,000 distinct triples: most of a second of work on a fast machine, interrupted after
    # 0.1 s.
    with open(tmp_path / "big.nt", "w") as f:
        for i in range(400_000):
            f.write(f"<urn:datalog:e{i}> <urn:datalog:n> \"{i}\" .\n")
    timer = threading.Timer(0.1, db.interrupt)
    timer.start()
    try:
        with pytest.raises(sqlite3.OperationalError, match="interrupted"):
            db.execute("SELECT datalog_import('g', 'big.nt')")
    finally:
        timer.cancel()
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]


# --- a large write commits its index in parts --------------------------------------------------
# In autocommit mode an import (or a datalog_exec script) commits the index part way whenever the
# pages it changed pass the connection's write_memory_mb, so its memory stays bounded; the log
# still commits once, so the write stays all or nothing, and one that never commits leaves
# records only a rebuild takes out (the next write does it).

def people_nt(path, people, tail=""):
    with open(path, "w") as f:
        for i in range(people):
            f.write(f'<urn:p:{i}> <urn:name> "Person {i}" .\n'
                    f'<urn:p:{i}> <urn:age> "{i % 90}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'
                    f'<urn:p:{i}> <urn:knows> <urn:p:{(i * 7 + 1) % people}> .\n')
        f.write(tail)


def test_an_import_committed_in_parts_gives_the_same_graph(db, tmp_path):
    people_nt(tmp_path / "people.nt", 20_000)
    assert rows(db, "SELECT datalog_limit('write_memory_mb')") == [(None,)]
    assert rows(db, "SELECT datalog_limit('write_memory_mb', 1)") == [(None,)]
    assert rows(db, "SELECT datalog_import('g', 'people.nt')") == [(60_000,)]
    db.execute("CREATE VIRTUAL TABLE whole USING datalog")
    assert rows(db, "SELECT datalog_limit('write_memory_mb', 0)") == [(1,)]
    assert rows(db, "SELECT datalog_import('whole', 'people.nt')") == [(60_000,)]
    assert facts(db) == facts(db, "whole")
    assert len(facts(db)) == 60_000
    # one graph transaction and one log row each, however many times the index committed
    for table in ("g", "whole"):
        assert rows(db, f"SELECT count(DISTINCT tx) FROM {table}") == [(1,)]
        assert '"ok":true' in rows(db, f"SELECT datalog_check('{table}')")[0][0]
    assert rows(db, "SELECT count(*) FROM g_log") == rows(db, "SELECT count(*) FROM whole_log")
    with raises_datalog("datalog_limit takes a number (of rows, or of MiB for max_memory_mb and "
                        "write_memory_mb; 0: no limit) or NULL"):
        db.execute("SELECT datalog_limit('write_memory_mb', -1)")


def test_a_failed_import_committed_in_parts_leaves_nothing_and_the_next_write_rebuilds(db, tmp_path):
    db.execute("INSERT INTO g(e, a, v) VALUES (':mine', ':n', 1)")
    people_nt(tmp_path / "bad.nt", 20_000, tail="<broken\n")
    db.execute("SELECT datalog_limit('write_memory_mb', 1)")
    with raises_datalog("bad.nt line 60001: unterminated IRI"):
        db.execute("SELECT datalog_import('g', 'bad.nt')")
    assert rows(db, "SELECT e, a, v FROM g") == [(":mine", ":n", 1)]
    # The index committed in parts: its records are there, hidden by every reader's bound.
    with raises_datalog(UNFINISHED):
        db.execute("SELECT datalog_check('g')")
    other = connect(tmp_path / "app.db")
    assert rows(other, "SELECT e, a, v FROM g") == [(":mine", ":n", 1)]
    assert rows(other, "SELECT count(*) FROM g WHERE valid_at = 'any' AND as_of = 1000000") == [(1,)]
    other.close()
    db.execute("INSERT INTO g(e, a, v) VALUES (':after', ':n', 2)")
    assert rows(db, "SELECT e, a, v, tx FROM g ORDER BY v") == [(":mine", ":n", 1, 1), (":after", ":n", 2, 2)]
    assert '"ok":true' in rows(db, "SELECT datalog_check('g')")[0][0]


def test_a_script_committed_in_parts_gives_the_same_graph_and_a_failed_one_leaves_nothing(db):
    # 40 commands of 2,000 new entities each, in autocommit mode: one graph transaction each,
    # the index committed in parts between them.
    commands = " ".join(
        "(transact [" + " ".join(f"[:p{c}-{i} :n {i}]" for i in range(2000)) + "])" for c in range(40))
    db.execute("CREATE VIRTUAL TABLE whole USING datalog")
    db.execute("SELECT datalog_limit('write_memory_mb', 1)")
    db.execute("SELECT datalog_exec('g', ?)", (commands,))
    db.execute("SELECT datalog_limit('write_memory_mb', 0)")
    db.execute("SELECT datalog_exec('whole', ?)", (commands,))
    assert facts(db) == facts(db, "whole")
    assert rows(db, "SELECT count(*), count(DISTINCT tx) FROM g") == [(80_000, 40)]
    assert '"ok":true' in rows(db, "SELECT datalog_check('g')")[0][0]

    db.execute("SELECT datalog_limit('write_memory_mb', 1)")
    with raises_datalog("Wrong type"):
        db.execute("SELECT datalog_exec('g', ?)",
                   (commands.replace(":p", ":q") + ' (transact [[:n :db/valueType :db.type/long] [:x :n "text"]])',))
    assert rows(db, "SELECT count(*) FROM g") == [(80_000,)]
    with raises_datalog(UNFINISHED):
        db.execute("SELECT datalog_check('g')")
    db.execute("INSERT INTO g(e, a, v) VALUES (':after', ':n', -1)")
    assert rows(db, "SELECT count(*), max(tx) FROM g") == [(80_001, 41)]
    assert '"ok":true' in rows(db, "SELECT datalog_check('g')")[0][0]


_IMPORT_CHILD = """
import sqlite3, sys
extension, database = sys.argv[1:3]
conn = sqlite3.connect(database, isolation_level=None)
conn.enable_load_extension(True)
conn.load_extension(extension)
conn.execute("SELECT datalog_limit('write_memory_mb', 1)")
conn.execute("SELECT datalog_import('g', 'big.nt')")
print("finished", flush=True)
"""


def test_a_killed_import_committed_in_parts_leaves_the_graph_as_it_was(db, tmp_path, ext_path):
    db.execute("INSERT INTO g(e, a, v) VALUES (':mine', ':n', 1)")
    people_nt(tmp_path / "big.nt", 400_000)
    index = tmp_path / "app.db-g.graph"
    size_before = os.path.getsize(index)
    script = tmp_path / "import_child.py"
    script.write_text(_IMPORT_CHILD)
    child = subprocess.Popen([sys.executable, str(script), ext_path, str(tmp_path / "app.db")],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The index file grows when a part is committed (LMDB writes pages at each commit).
        deadline = time.monotonic() + 120
        while os.path.getsize(index) < size_before + (8 << 20) and child.poll() is None:
            assert time.monotonic() < deadline, "the import committed nothing in 120 s"
            time.sleep(0.002)
    finally:
        child.send_signal(signal.SIGKILL)
        out, err = child.communicate()
    assert child.returncode == -signal.SIGKILL, err
    assert "finished" not in out
    assert rows(db, "SELECT e, a, v FROM g") == [(":mine", ":n", 1)]
    with raises_datalog(UNFINISHED):
        db.execute("SELECT datalog_check('g')")
    db.execute("INSERT INTO g(e, a, v) VALUES (':after', ':n', 2)")
    assert rows(db, "SELECT e, a, v, tx FROM g ORDER BY v") == [(":mine", ":n", 1, 1), (":after", ":n", 2, 2)]
    assert '"ok":true' in rows(db, "SELECT datalog_check('g')")[0][0]


# --- trust boundary -----------------------------------------------------------------------------

def test_direct_only(db, tmp_path):
    write(tmp_path / "a.nt", GOOD_NT)
    db.execute("CREATE VIEW v AS SELECT datalog_import('g', 'a.nt') AS n")
    with pytest.raises(sqlite3.OperationalError, match=r"unsafe use of datalog_import\(\)"):
        db.execute("SELECT * FROM v")
    db.execute("CREATE VIEW w AS SELECT datalog_export('g', 'out.nt') AS n")
    with pytest.raises(sqlite3.OperationalError, match=r"unsafe use of datalog_export\(\)"):
        db.execute("SELECT * FROM w")
    db.execute("CREATE TABLE log(x)")
    db.execute("CREATE TRIGGER t AFTER INSERT ON log BEGIN SELECT datalog_import('g', 'a.nt'); END")
    with pytest.raises(sqlite3.OperationalError, match=r"unsafe use of datalog_import\(\)"):
        db.execute("INSERT INTO log VALUES (1)")
    assert rows(db, "SELECT count(*) FROM g") == [(0,)]


def test_paths_follow_the_graph_file_rule(db, tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-outside.nt"
    write(outside, GOOD_NT)
    with raises_datalog("must be a file in the database's folder"):
        db.execute("SELECT datalog_import('g', ?)", (str(outside),))
    with raises_datalog("must be a file in the database's folder"):
        db.execute("SELECT datalog_export('g', '../x.nt')")
    db.execute("SELECT datalog_allow_graph_paths(1)")
    assert db.execute("SELECT datalog_import('g', ?)", (str(outside),)).fetchone()[0] == 5000
    os.remove(outside)


def test_export_never_overwrites_the_database_or_the_index(db, tmp_path):
    db.execute("INSERT INTO g(e, a, v) VALUES (':a', ':n', 1)")
    with raises_datalog("would be the database file itself"):
        db.execute("SELECT datalog_export('g', 'app.db', 'nt')")
    with raises_datalog("is the graph's index"):
        db.execute("SELECT datalog_export('g', 'app.db-g.graph', 'nt')")
    assert rows(db, "SELECT count(*) FROM g") == [(1,)]


def test_failed_export_leaves_no_file(db, tmp_path):
    db.execute("SELECT datalog_exec('g', '(transact [' || (SELECT group_concat('[:e' || value || ' :n ' || value || ']', ' ') "
               "FROM generate_series(1, 20000)) || '])')") if False else None
    db.executemany("INSERT INTO g(e, a, v) VALUES (?, ':n', ?)", [(i, i) for i in range(1, 20001)])
    db.set_progress_handler(lambda: 1, 1000)
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        db.execute("SELECT datalog_export('g', 'out.csv')")
    db.set_progress_handler(None, 0)
    assert sorted(os.listdir(tmp_path)) == sorted(f for f in os.listdir(tmp_path) if "out.csv" not in f)
    assert not (tmp_path / "out.csv").exists()
