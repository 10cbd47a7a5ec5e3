"""datalog_import: the parts of the formats beyond the basics of test_import_export.py — Turtle's
long strings, anonymous blank nodes [ ... ] and collections ( ... ), relative IRIs, escaped names and
.5 decimals; typed CSV columns
(attr:vtype); a valid-time map before an EDN transaction vector. Exact query results after each
import, round trips, and errors with their exact text and line."""
import re
import sqlite3

import pytest

from conftest import rows

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
EX = ":http://example.org/"


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def import_error(db, name):
    """The error text of importing name, after checking that it left the graph empty."""
    with pytest.raises(sqlite3.Error) as e:
        db.execute("SELECT datalog_import('g', ?)", (name,))
    assert rows(db, "SELECT count(*) FROM g_log") == [(0,)]
    return str(e.value)


def windows(conn, table="g"):
    return sorted(rows(conn, f"SELECT e, a, v, vtype, valid_from, valid_to FROM {table} "
                             "WHERE valid_at = 'any'"), key=repr)


def value(db, e, a):
    return rows(db, "SELECT v, vtype FROM g WHERE e = ? AND a = ?", (e, a))


def rdf_list(db, head):
    """The items of the RDF list at head (an entity as the store table shows it), nested lists
    as lists, other items as (v, vtype)."""
    items = []
    while head != ":rdf/nil":
        [(first, kind)] = value(db, head, ":rdf/first")
        nested = kind == "ref" and (first == ":rdf/nil" or value(db, first, ":rdf/first"))
        items.append(rdf_list(db, first) if nested else (first, kind))
        [(head, kind)] = value(db, head, ":rdf/rest")
        assert kind == "ref"
    return items


# --- Turtle: long strings ---------------------------------------------------------------------------

LONG = '''@prefix ex: <http://example.org/> .
ex:a ex:text """first line
  "quoted" and ""two"" and 'single' # not a comment
tab\\there \\u00e9 \\U0001F600 \\"""  end""" ;
  ex:other \'\'\'it's
\'\'\' ;
  ex:empty """""" ; ex:empty2 \'\'\'\'\'\' ;
  ex:typed """42"""^^<http://www.w3.org/2001/XMLSchema#integer> ;
  ex:lang """Hallo
Welt"""@de ;
  ex:short "still \\"short\\"" .
ex:b ex:n 1 .
'''


def test_turtle_long_strings(db, tmp_path):
    write(tmp_path / "long.ttl", LONG)
    assert db.execute("SELECT datalog_import('g', 'long.ttl')").fetchone()[0] == 8
    a = EX + "a"
    assert value(db, a, EX + "text") == [
        ('first line\n  "quoted" and ""two"" and \'single\' # not a comment\ntab\there \u00e9 \U0001F600 """  end',
         "string")]
    assert value(db, a, EX + "other") == [("it's\n", "string")]
    assert value(db, a, EX + "empty") == value(db, a, EX + "empty2") == [("", "string")]
    assert value(db, a, EX + "typed") == [(42, "integer")]
    assert value(db, a, EX + "lang") == [("Hallo\nWelt", "string")]
    assert value(db, a, EX + "short") == [('still "short"', "string")]
    assert value(db, EX + "b", EX + "n") == [(1, "integer")]


def test_turtle_long_string_keeps_crlf_and_lines_count_after_it(db, tmp_path):
    write(tmp_path / "after.ttl", '<urn:datalog:a> <urn:datalog:t> """one\ntwo\nthree""" .\n'
                                  'nope:x <urn:datalog:t> 1 .\n')
    assert import_error(db, "after.ttl") == "datalog: datalog_import: after.ttl line 4: undeclared prefix 'nope:'"
    write(tmp_path / "crlf.ttl", '<urn:datalog:a> <urn:datalog:t> """one\r\ntwo\r\n""" .\r\n'
                                 '<urn:datalog:a> <urn:datalog:u> "x"^^<urn:datalog:nope> .\r\n')
    db.execute("SELECT datalog_import('g', 'crlf.ttl')")
    assert value(db, ":a", ":t") == [("one\r\ntwo\r\n", "string")]


def test_turtle_long_string_errors(db, tmp_path):
    write(tmp_path / "open.ttl", '<urn:datalog:a> <urn:datalog:b> 1 .\n'
                                 '<urn:datalog:a> <urn:datalog:t> """begins here\n'
                                 'and goes on\n'
                                 '<urn:datalog:a> <urn:datalog:b> 2 .\n')
    assert ("datalog: datalog_import: open.ttl line 2: unterminated long string (the file ends inside it)"
            == import_error(db, "open.ttl"))
    write(tmp_path / "escape.ttl", "<urn:datalog:a> <urn:datalog:t> '''fine\nnot \\q fine''' .\n")
    assert import_error(db, "escape.ttl") == "datalog: datalog_import: escape.ttl line 2: bad escape '\\q' in string"
    write(tmp_path / "slash.ttl", '<urn:datalog:a> <urn:datalog:t> """a \\\nb""" .\n')
    assert import_error(db, "slash.ttl") == (
        "datalog: datalog_import: slash.ttl line 1: a backslash at the end of a line (Turtle has no line continuation)")


def test_turtle_long_string_limit(db, tmp_path):
    # 65 lines of 1 MiB: every line is short, the string is not.
    line = "x" * (1 << 20) + "\n"
    with open(tmp_path / "huge.ttl", "w") as f:
        f.write("<urn:datalog:a> <urn:datalog:b> 1 .\n<urn:datalog:a> <urn:datalog:t> '''\n")
        for _ in range(65):
            f.write(line)
        f.write("''' .\n")
    assert import_error(db, "huge.ttl") == (
        "datalog: datalog_import: huge.ttl line 2: long string longer than 64 MiB (the limit of a line)")


# --- Turtle: anonymous blank nodes --------------------------------------------------------------------

BLANKS = """@prefix ex: <http://example.org/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
ex:alice foaf:name "Alice" ;
  foaf:knows [ foaf:name "Bob" ; foaf:age 30 , 31 ;
               foaf:knows [ foaf:name "Carol" ] ] , [] .
[ foaf:name "Dan" ] foaf:knows ex:alice .
[] foaf:name "Eve" ; foaf:mbox <mailto:eve@example.org> .
[
  foaf:name "Fay"
] .
[ foaf:name "Gus" ; ; ] .
ex:alice foaf:knows [ foaf:name "Hal" ; ] , _:x .
_:x foaf:name "Ivy" .
"""


def test_turtle_anonymous_blank_nodes(db, tmp_path):
    write(tmp_path / "blank.ttl", BLANKS)
    assert db.execute("SELECT datalog_import('g', 'blank.ttl')").fetchone()[0] == 18
    q = "(query [:find ?n ?m :where [?x :foaf/knows ?y] [?x :foaf/name ?n] [?y :foaf/name ?m]])"
    assert sorted(rows(db, "SELECT c1, c2 FROM datalog_q('g', ?)", (q,))) == [
        ("Alice", "Bob"), ("Alice", "Hal"), ("Alice", "Ivy"), ("Bob", "Carol"), ("Dan", "Alice")]
    assert rows(db, "SELECT v FROM g WHERE a = ':foaf/age' ORDER BY v") == [(30,), (31,)]
    assert value(db, rows(db, "SELECT e FROM g WHERE v = 'Eve'")[0][0], ":foaf/mbox") == [
        (":mailto:eve@example.org", "ref")]
    # Each [ ... ] is a fresh entity with a #uuid ident, as a labelled blank node is; [] too.
    blanks = rows(db, "SELECT DISTINCT e FROM g WHERE e <> ? UNION "
                      "SELECT v FROM g WHERE a = ':foaf/knows' AND v <> ?", (EX + "alice", EX + "alice"))
    assert len(blanks) == 9 and all(UUID.match(e) for (e,) in blanks)
    assert rows(db, "SELECT count(*) FROM g WHERE e = ? AND a = ':foaf/knows'", (EX + "alice",)) == [(4,)]


def test_turtle_anonymous_blank_node_errors(db, tmp_path):
    cases = [
        ("[] .\n", "line 1: expected a predicate"),
        ("<urn:datalog:a> <urn:datalog:b> [ <urn:datalog:c> ] .\n", "line 1: expected an object"),
        ("<urn:datalog:a> <urn:datalog:b> [ ; <urn:datalog:c> 1 ] .\n", "line 1: expected a predicate"),
        ("<urn:datalog:a> <urn:datalog:b> [\n <urn:datalog:c> 1 .\n", "line 2: '.' inside the '[' of line 1 (not closed)"),
        ("<urn:datalog:a> <urn:datalog:b> 1 ] .\n", "line 1: ']' without '['"),
        ("<urn:datalog:a> <urn:datalog:b> [ <urn:datalog:c> 1 2 ] .\n",
         "line 1: expected ']', ';' or ',' after the object"),
        ("<urn:datalog:a> <urn:datalog:b> [ <urn:datalog:c> 1 ] [] .\n",
         "line 1: expected '.', ';' or ',' after the object"),
        ("<urn:datalog:a> <urn:datalog:b> 1 .\n<urn:datalog:a> <urn:datalog:b> [\n<urn:datalog:c> [\n"
         "<urn:datalog:d> 1 ]\n", "line 2: '[' is not closed (the file ends inside it)"),
    ]
    for text, message in cases:
        write(tmp_path / "bad.ttl", text)
        assert import_error(db, "bad.ttl") == f"datalog: datalog_import: bad.ttl {message}", text


# --- Turtle: collections -------------------------------------------------------------------------------

COLLECTIONS = """@prefix ex: <http://example.org/> .
ex:list ex:items ( 1 "two" ex:three ( 4 )
                   [ ex:n 5 ] () ) .
ex:empty ex:items () .
( "a" 'b' ) ex:label "a subject" .
ex:pair ex:items ("x"), ( ) ; ex:n 6 .
"""


def test_turtle_collections(db, tmp_path):
    write(tmp_path / "lists.ttl", COLLECTIONS)
    assert db.execute("SELECT datalog_import('g', 'lists.ttl')").fetchone()[0] == 27
    [(head, kind)] = value(db, EX + "list", EX + "items")
    assert kind == "ref" and UUID.match(head)
    items = rdf_list(db, head)
    blank = items[4][0]
    assert items == [(1, "integer"), ("two", "string"), (EX + "three", "ref"), [(4, "integer")],
                     (blank, "ref"), []]
    assert value(db, blank, EX + "n") == [(5, "integer")]
    # () is rdf:nil itself, the keyword entity :rdf/nil
    assert value(db, EX + "empty", EX + "items") == [(":rdf/nil", "ref")]
    [(subject,)] = rows(db, "SELECT e FROM g WHERE a = ? AND v = 'a subject'", (EX + "label",))
    assert rdf_list(db, subject) == [("a", "string"), ("b", "string")]
    pair = rows(db, "SELECT v FROM g WHERE e = ? AND a = ?", (EX + "pair", EX + "items"))
    assert sorted((rdf_list(db, h) for (h,) in pair), key=len) == [[], [("x", "string")]]
    # Datalog walks the list: (member ?list ?x) over :rdf/first and :rdf/rest.
    db.execute("""SELECT datalog_exec('g', '(rule [(member ?l ?x) [?l :rdf/first ?x]])
                                           (rule [(member ?l ?x) [?l :rdf/rest ?r] (member ?r ?x)])')""")
    q = "(query [:find ?x :where [?s :rdf/first \"a\"] (member ?s ?x)])"
    assert sorted(rows(db, "SELECT c1 FROM datalog_q('g', ?)", (q,))) == [("a",), ("b",)]


def test_turtle_collection_errors(db, tmp_path):
    cases = [
        ("<urn:datalog:a> <urn:datalog:b> ( 1 2 .\n", "line 1: '.' inside the '(' of line 1 (not closed)"),
        ("<urn:datalog:a> <urn:datalog:b> ( 1 ] .\n", "line 1: ']' without '['"),
        ("<urn:datalog:a> <urn:datalog:b> [ <urn:datalog:c> 1 ) .\n", "line 1: ')' without '('"),
        ("<urn:datalog:a> <urn:datalog:b> ( 1 , 2 ) .\n", "line 1: expected an object or ')' in the collection"),
        ("( 1 2 ) .\n", "line 1: expected a predicate"),
        ("<urn:datalog:a> <urn:datalog:b> 1 .\n\n<urn:datalog:a> <urn:datalog:b> ( 1\n 2\n",
         "line 3: '(' is not closed (the file ends inside it)"),
        ("<urn:datalog:a> <urn:datalog:b> ( [ <urn:datalog:c> (\n", "line 1: '(' is not closed (the file ends inside it)"),
    ]
    for text, message in cases:
        write(tmp_path / "bad.ttl", text)
        assert import_error(db, "bad.ttl") == f"datalog: datalog_import: bad.ttl {message}", text


def test_turtle_owl_shaped_file(db, tmp_path):
    """The shapes ontologies are written in: restrictions as [ ... ], unionOf lists, long comments."""
    write(tmp_path / "onto.ttl", '''@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix ex: <http://example.org/onto#> .
ex:Parent a owl:Class ;
  rdfs:comment """A person with at least one child.
See "Family" for the rest.""" ;
  owl:equivalentClass [ a owl:Restriction ; owl:onProperty ex:hasChild ;
                        owl:someValuesFrom ex:Person ] ;
  rdfs:subClassOf [ owl:unionOf ( ex:Mother ex:Father ) ] .
''')
    assert db.execute("SELECT datalog_import('g', 'onto.ttl')").fetchone()[0] == 12
    q = """(query [:find ?p ?c :where [?r :rdf/type :owl/Restriction] [?r :owl/onProperty ?p]
                   [?r :owl/someValuesFrom ?c]])"""
    assert rows(db, "SELECT c1, c2 FROM datalog_q('g', ?)", (q,)) == [
        (":http://example.org/onto#hasChild", ":http://example.org/onto#Person")]
    [(union,)] = rows(db, "SELECT u.v FROM g s JOIN g u ON u.e = s.v WHERE s.a = ':rdfs/subClassOf' "
                          "AND u.a = ':owl/unionOf'")
    assert rdf_list(db, union) == [(":http://example.org/onto#Mother", "ref"),
                                   (":http://example.org/onto#Father", "ref")]
    assert rows(db, "SELECT v FROM g WHERE a = ':rdfs/comment'") == [
        ('A person with at least one child.\nSee "Family" for the rest.',)]


@pytest.mark.parametrize("name", ["out.ttl", "out.nt"])
def test_turtle_round_trip(db, tmp_path, name):
    write(tmp_path / "in.ttl", LONG + BLANKS + COLLECTIONS)
    imported = db.execute("SELECT datalog_import('g', 'in.ttl')").fetchone()[0]
    assert imported == rows(db, "SELECT count(*) FROM g")[0][0]
    assert db.execute("SELECT datalog_export('g', ?)", (name,)).fetchone()[0] == imported
    db.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    assert db.execute("SELECT datalog_import('g2', ?)", (name,)).fetchone()[0] == imported
    # Blank nodes went out as <urn:uuid:...> and came back as the same #uuid idents.
    assert sorted(rows(db, "SELECT e, a, v, vtype FROM g2"), key=repr) == sorted(
        rows(db, "SELECT e, a, v, vtype FROM g"), key=repr)


# --- Turtle: relative IRIs, escaped names, decimals ------------------------------------------------

# RFC 3986's examples (section 5.4), resolved against its base http://a/b/c/d;p?q.
RFC3986 = [
    ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
    ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"),
    ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"),
    ("g?y#s", "http://a/b/c/g?y#s"), (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"),
    ("g;x?y#s", "http://a/b/c/g;x?y#s"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"),
    ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"),
    ("../..", "http://a/"), ("../../", "http://a/"), ("../../g", "http://a/g"),
    ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
    ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
    ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"),
    ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
    ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
    ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
    ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"),
]


def test_turtle_relative_iris_resolve_as_rfc3986_says(db, tmp_path):
    lines = ["@base <http://a/b/c/d;p?q> ."]
    lines += [f"<urn:datalog:s{i}> <urn:datalog:ref> <{ref}> ." for i, (ref, _) in enumerate(RFC3986)]
    write(tmp_path / "rel.ttl", "\n".join(lines) + "\n")
    assert db.execute("SELECT datalog_import('g', 'rel.ttl')").fetchone()[0] == len(RFC3986)
    for i, (ref, expected) in enumerate(RFC3986):
        assert value(db, f":s{i}", ":ref") == [(":" + expected, "ref")], ref


def test_turtle_base_and_prefixes_resolve_against_the_base_before_them(db, tmp_path):
    write(tmp_path / "bases.ttl", """@base <http://example.org/a/b> .
@prefix p: <c/> .
BASE <../x/>
<s> p:q <#frag> .
@base <//other.org/root/> .
<t> p:q <../up> .
""")
    assert db.execute("SELECT datalog_import('g', 'bases.ttl')").fetchone()[0] == 2
    assert value(db, EX + "x/s", EX + "a/c/q") == [(EX + "x/#frag", "ref")]
    assert value(db, ":http://other.org/root/t", EX + "a/c/q") == [(":http://other.org/up", "ref")]


def test_turtle_escaped_prefixed_names_and_decimals(db, tmp_path):
    write(tmp_path / "names.ttl", r"""@prefix ex: <http://example.org/> .
ex:a\.b ex:v\~w .5 ; ex:neg -.25 ; ex:exp .5e1 ; ex:pct ex:50%25\%off .
ex:end\. ex:x ex:y\.\. .
ex:c ex:d 7.
""")
    assert db.execute("SELECT datalog_import('g', 'names.ttl')").fetchone()[0] == 6
    a = EX + "a.b"
    assert value(db, a, EX + "v~w") == [(0.5, "float")]
    assert value(db, a, EX + "neg") == [(-0.25, "float")]
    assert value(db, a, EX + "exp") == [(5.0, "float")]
    assert value(db, a, EX + "pct") == [(EX + "50%25%off", "ref")]
    assert value(db, EX + "end.", EX + "x") == [(EX + "y..", "ref")]
    assert value(db, EX + "c", EX + "d") == [(7, "integer")]


def test_ntriples_escapes_between_runs_of_plain_characters(db, tmp_path):
    """IRIs and strings are read a run of plain characters at a time; escapes at their start, in
    their middle and at their end, and back to back, still decode, and what may not stand in an
    IRI still ends it with an error."""
    for bad in ("<http://example.org/a b> <http://example.org/p> 1 .\n",
                "<http://example.org/a<b> <http://example.org/p> 1 .\n",
                '<http://example.org/a"b> <http://example.org/p> 1 .\n'):
        write(tmp_path / "bad.nt", bad)
        assert import_error(db, "bad.nt") == "datalog: datalog_import: bad.nt line 1: unterminated IRI"
    write(tmp_path / "bad.nt", "<http://example.org/a\\n> <http://example.org/p> 1 .\n")
    assert import_error(db, "bad.nt") == "datalog: datalog_import: bad.nt line 1: bad escape in IRI"
    write(tmp_path / "esc.nt",
          "<http://example.org/\\u0041b\\U00000043> <http://example.org/p> "
          "\"\\tstart mid\\u00e9dle\\\"\\\\end\\n\" .\n"
          "<\\u0078> <http://example.org/p> \"\" .\n")
    assert db.execute("SELECT datalog_import('g', 'esc.nt')").fetchone()[0] == 2
    assert value(db, EX + "AbC", EX + "p") == [("\tstart mid\u00e9dle\"\\end\n", "string")]
    assert value(db, ":x", EX + "p") == [("", "string")]


def test_turtle_bad_escape_in_a_prefixed_name(db, tmp_path):
    write(tmp_path / "bad.ttl", "@prefix ex: <http://example.org/> .\nex:a ex:b ex:c\\q .\n")
    assert import_error(db, "bad.ttl") == \
        "datalog: datalog_import: bad.ttl line 2: bad escape '\\q' in a prefixed name"


# --- CSV: typed columns ---------------------------------------------------------------------------------

TYPED_CSV = ("name,age:integer,born:instant,friend:ref,:person/score:float,tag:keyword,id:uuid,photo:bytes,"
             "ok:boolean,zip:string,odd:thing,:integer,a:b:integer\n"
             "alice,30,1990-05-06T07:08:09.010Z,:bob,1.5,:admin,6ba7b810-9dad-11d1-80b4-00c04fd430c8,00ff10,"
             "true,01234,x,7,8\n"
             "bob,31,1700000000000,42,2,:user,,,0,99,y,,\n")


def test_csv_typed_columns(db, tmp_path):
    write(tmp_path / "typed.csv", TYPED_CSV)
    assert db.execute("SELECT datalog_import('g', 'typed.csv')").fetchone()[0] == 20
    assert sorted(rows(db, "SELECT e, a, v, vtype FROM g"), key=repr) == sorted([
        (":alice", ":age", 30, "integer"), (":alice", ":born", "1990-05-06T07:08:09.010Z", "instant"),
        (":alice", ":friend", ":bob", "ref"), (":alice", ":person/score", 1.5, "float"),
        (":alice", ":tag", ":admin", "keyword"), (":alice", ":id", "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "uuid"),
        (":alice", ":photo", b"\x00\xff\x10", "bytes"), (":alice", ":ok", 1, "boolean"),
        (":alice", ":zip", "01234", "string"),  # inferred, it would be the integer 1234
        (":alice", ":odd:thing", "x", "string"),  # not a vtype: the whole header is the attribute
        (":alice", ":integer", 7, "integer"),  # the leading ':' is the keyword's: inferred
        (":alice", ":a:b", 8, "integer"),  # the type is what follows the last ':'
        (":bob", ":age", 31, "integer"),
        (":bob", ":born", "2023-11-14T22:13:20.000Z", "instant"),  # integer ms
        (":bob", ":friend", 42, "ref"),  # an integer id
        (":bob", ":person/score", 2.0, "float"),  # inferred, it would be the integer 2
        (":bob", ":tag", ":user", "keyword"), (":bob", ":ok", 0, "boolean"),
        (":bob", ":zip", "99", "string"), (":bob", ":odd:thing", "y", "string")], key=repr)
    q = "(query [:find ?n :where [:alice :friend ?f] [?f :age ?n]])"
    assert rows(db, "SELECT c1 FROM datalog_q('g', ?)", (q,)) == [(31,)]


def test_csv_typed_columns_round_trip(db, tmp_path):
    write(tmp_path / "typed.csv", TYPED_CSV)
    db.execute("SELECT datalog_import('g', 'typed.csv')")
    assert db.execute("SELECT datalog_export('g', 'out.csv')").fetchone()[0] == 20
    db.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    assert db.execute("SELECT datalog_import('g2', 'out.csv')").fetchone()[0] == 20
    assert windows(db, "g2") == windows(db)


def test_csv_typed_column_errors(db, tmp_path):
    cases = [
        ("name,age:integer\nalice,30\n\nbob,old\n", "line 4: column 'age:integer': 'old' is not an integer"),
        ('name,bio,friend:ref\nalice,"two\nlines",not one\n',
         "line 2: column 'friend:ref': 'not one' is not an entity (':ident', a uuid or an integer id)"),
        ("name,photo:bytes\nalice,zz\n", "line 2: column 'photo:bytes': 'zz' is not hex bytes"),
        ("name,ok:boolean\nalice,yes\n", "line 2: column 'ok:boolean': 'yes' is not a boolean (true, false, 1 or 0)"),
        ("name,x:uuid\nalice,123\n", "line 2: column 'x:uuid': '123' is not a uuid"),
        ("name,k:keyword\nalice,plain\n", "line 2: column 'k:keyword': 'plain' is not a keyword (':name')"),
        ("name,s:float\nalice,1.5.2\n", "line 2: column 's:float': '1.5.2' is not a float"),
    ]
    for text, message in cases:
        write(tmp_path / "bad.csv", text)
        assert import_error(db, "bad.csv") == f"datalog: datalog_import: bad.csv {message}", text
    write(tmp_path / "bad.csv", "name,born:instant\nalice,yesterday\n")
    assert import_error(db, "bad.csv").startswith(
        "datalog: datalog_import: bad.csv line 2: column 'born:instant': 'yesterday' is not an instant (")


# --- EDN: a valid-time map before a transaction vector ----------------------------------------------------

EDN_VALID = """; a valid-time map applies to the vector after it
{:valid-from "2020-01-01" :valid-to "2021-01-01"}
[[:alice :role "intern"]
 [:alice :team "a" {:valid-to "2020-06-01"}]
 [:bob :role "lead" {:valid-from "2019-01-01"}]
 {:db/id :carol :role "tester"}]
[[:dan :role "none"]]
{:valid-from #inst "2022-03-04T05:06:07.089Z" ; a comment inside
 } [[:erin :role "late"]]
"""

TRANSACT_VALID = """(transact {:valid-from "2020-01-01" :valid-to "2021-01-01"}
  [[:alice :role "intern"] [:alice :team "a" {:valid-to "2020-06-01"}]
   [:bob :role "lead" {:valid-from "2019-01-01"}] {:db/id :carol :role "tester"}])
(transact [[:dan :role "none"]])
(transact {:valid-from #inst "2022-03-04T05:06:07.089Z"} [[:erin :role "late"]])"""


def test_edn_valid_time_map(db, tmp_path):
    write(tmp_path / "tx.edn", EDN_VALID)
    assert db.execute("SELECT datalog_import('g', 'tx.edn')").fetchone()[0] == 6
    got = rows(db, "SELECT e, a, v, tx, valid_from, valid_to FROM g WHERE valid_at = 'any' AND e <> ':dan' "
                   "ORDER BY e, a")
    assert got == [
        (":alice", ":role", "intern", 1, "2020-01-01T00:00:00.000Z", "2021-01-01T00:00:00.000Z"),
        (":alice", ":team", "a", 1, "2020-01-01T00:00:00.000Z", "2020-06-01T00:00:00.000Z"),
        (":bob", ":role", "lead", 1, "2019-01-01T00:00:00.000Z", "2021-01-01T00:00:00.000Z"),
        (":carol", ":role", "tester", 1, "2020-01-01T00:00:00.000Z", "2021-01-01T00:00:00.000Z"),
        (":erin", ":role", "late", 3, "2022-03-04T05:06:07.089Z", None)]
    # The map applies to its vector only: :dan is valid from his transaction on.
    assert rows(db, "SELECT tx, valid_from = tx_time, valid_to FROM g WHERE e = ':dan'") == [(2, 1, None)]
    # Exactly what (transact {...} [...]) gives.
    db.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    db.execute("SELECT datalog_exec('g2', ?)", (TRANSACT_VALID,))
    q = "SELECT e, a, v, tx, valid_from, valid_to FROM {} WHERE valid_at = 'any' AND e <> ':dan' ORDER BY e, a"
    assert rows(db, q.format("g2")) == got


def test_edn_valid_time_map_spans_pieces(db, tmp_path):
    write(tmp_path / "big.edn", '{:valid-to "2030-01-01"}\n[\n' + "\n".join(f"[:e{i} :n {i}]" for i in range(5000))
          + '\n[:last :n 1 {:valid-to "2031-01-01"}]]\n')
    assert db.execute("SELECT datalog_import('g', 'big.edn')").fetchone()[0] == 5001
    assert rows(db, "SELECT valid_to, count(*), max(tx) FROM g GROUP BY valid_to ORDER BY 1") == [
        ("2030-01-01T00:00:00.000Z", 5000, 1), ("2031-01-01T00:00:00.000Z", 1, 1)]


def test_edn_valid_time_map_round_trip(db, tmp_path):
    write(tmp_path / "tx.edn", EDN_VALID)
    db.execute("SELECT datalog_import('g', 'tx.edn')")
    exported = db.execute("SELECT datalog_export('g', 'history.edn')").fetchone()[0]
    db.execute("CREATE VIRTUAL TABLE g2 USING datalog")
    assert db.execute("SELECT datalog_import('g2', 'history.edn')").fetchone()[0] == exported
    cols = "e, a, v, vtype, tx, tx_time, valid_from, valid_to"
    assert rows(db, f"SELECT {cols} FROM g2 WHERE valid_at = 'any' ORDER BY e, a") == rows(
        db, f"SELECT {cols} FROM g WHERE valid_at = 'any' ORDER BY e, a")


def test_edn_valid_time_map_errors(db, tmp_path):
    cases = [
        ('[[:a :b 1]]\n{:valid-from "2020-01-01"\n :valid-until "2021-01-01"}\n[[:a :b 2]]\n',
         "line 3: Unknown key in valid-time map: :valid-until; expected :valid-from or :valid-to"),
        ('{:db/id :x :name "y"}\n[[:a :b 1]]\n',
         "line 1: Unknown key in valid-time map: :db/id; expected :valid-from or :valid-to"),
        ('[[:a :b 1]]\n\n{:valid-from "2020-01-01"}\n', "line 3: Transact with options requires a facts vector after the map"),
        ('{:valid-from "2020-01-01"}\n{:valid-to "2021-01-01"}\n[[:a :b 1]]\n',
         "line 1: Transact with options requires a facts vector after the map"),
        ('{:valid-from 5}\n[[:a :b 1]]\n', "line 1: :valid-from must be an ISO 8601 string, got 5"),
        ('{:valid-from "2020-01-01"\n}\n[[:a :b 1]\n [:a :b 2 3]]\n',
         "line 4: Optional 4th element of a fact must be a map {:valid-from ... :valid-to ...}, got 3"),
    ]
    for text, message in cases:
        write(tmp_path / "bad.edn", text)
        assert import_error(db, "bad.edn") == f"datalog: datalog_import: bad.edn {message}", text
    # The same message transact gives for the same map.
    with pytest.raises(sqlite3.Error) as e:
        db.execute("""SELECT datalog_exec('g', '(transact {:valid-until "2021-01-01"} [[:a :b 1]])')""")
    assert str(e.value).endswith("Unknown key in valid-time map: :valid-until; expected :valid-from or :valid-to")
    write(tmp_path / "bad.edn", '\n{:valid-from "yesterday"} [[:a :b 1]]\n')
    assert import_error(db, "bad.edn").startswith("datalog: datalog_import: bad.edn line 2: ")
