"""datalog_dot(graph, query): a GraphViz DOT text of a query's (entity, attribute, value) facts."""
import sqlite3

import pytest

from conftest import raises_datalog

ALL = "(query [:find ?e ?a ?v :where [?e ?a ?v]])"


@pytest.fixture
def people(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (':alice', ':person/name', 'Alice'),"
               " (':alice', ':person/age', 34), (':bob', ':person/name', 'Bob')")
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (':alice', ':friend', ':bob', 'ref'),"
               " (':bob', ':friend', ':alice', 'ref')")
    return db


def dot(db, query, graph="g"):
    return db.execute("SELECT datalog_dot(?, ?)", (graph, query)).fetchone()[0]


def test_entities_are_boxes_with_their_literal_facts_and_refs_are_edges(people):
    assert dot(people, ALL) == (
        'digraph "g" {\n'
        '  node [shape=box];\n'
        '  n4503599627370496 [label=":alice\\n:person/age 34\\n:person/name \\"Alice\\""];\n'
        '  n4503599627370499 [label=":bob\\n:person/name \\"Bob\\""];\n'
        '  n4503599627370496 -> n4503599627370499 [label=":friend"];\n'
        '  n4503599627370499 -> n4503599627370496 [label=":friend"];\n'
        '}\n')


def test_the_query_chooses_the_subgraph(people):
    # Only :alice's facts: :bob appears as the target of her edge, named but without lines.
    assert dot(people, "(query [:find ?e ?a ?v :where [?e ?a ?v] [?e :person/age _]])") == (
        'digraph "g" {\n'
        '  node [shape=box];\n'
        '  n4503599627370496 [label=":alice\\n:person/age 34\\n:person/name \\"Alice\\""];\n'
        '  n4503599627370499 [label=":bob"];\n'
        '  n4503599627370496 -> n4503599627370499 [label=":friend"];\n'
        '}\n')


def test_rules_and_constant_attributes(people):
    people.execute("SELECT datalog_exec('g', '(rule [(knows ?a ?b) [?a :friend ?b]])')")
    query = "(query [:find ?a ?rel ?b :where (knows ?a ?b) [(ground :knows) ?rel]])"
    assert dot(people, query) == (
        'digraph "g" {\n'
        '  node [shape=box];\n'
        '  n4503599627370496 [label=":alice"];\n'
        '  n4503599627370499 [label=":bob"];\n'
        '  n4503599627370496 -> n4503599627370499 [label=":knows"];\n'
        '  n4503599627370499 -> n4503599627370496 [label=":knows"];\n'
        '}\n')


def test_labels_are_escaped(db):
    db.execute("INSERT INTO g(e, a, v) VALUES (7, ':note', ?), (7, ':text', ?), (7, ':t', ?)",
               ('say "hi" \\ bye', "two\nlines\r\nthree", "caf\u00e9 & \u65e5\u672c\ttab\x01"))
    assert dot(db, ALL) == (
        'digraph "g" {\n'
        '  node [shape=box];\n'
        '  n7 [label="#7\\n:note \\"say \\"hi\\" \\\\ bye\\"\\n'
        ':t \\"caf\u00e9 &amp; \u65e5\u672c&#9;tab&#1;\\"\\n'
        ':text \\"two\\nlines\\nthree\\""];\n'
        '}\n')


def test_graph_name_is_quoted(tmp_path):
    from conftest import connect
    conn = connect(tmp_path / "x.db")
    conn.execute('CREATE VIRTUAL TABLE "we""ird" USING datalog')
    conn.execute("""INSERT INTO "we""ird"(e, a, v) VALUES (1, ':n', 2)""")
    assert dot(conn, ALL, 'we"ird') == (
        'digraph "we\\"ird" {\n'
        '  node [shape=box];\n'
        '  n1 [label="#1\\n:n 2"];\n'
        '}\n')


def test_other_values_show_as_edn(db):
    db.execute("INSERT INTO g(e, a, v, vtype) VALUES (1, ':k', ':red', 'keyword'),"
               " (1, ':b', 1, 'boolean'), (1, ':f', 1.5, 'float'),"
               " (1, ':at', '2020-06-01', 'instant')")
    assert dot(db, ALL) == (
        'digraph "g" {\n'
        '  node [shape=box];\n'
        '  n1 [label="#1\\n:at #inst \\"2020-06-01T00:00:00.000Z\\"\\n:b true\\n:f 1.5\\n:k :red"];\n'
        '}\n')


def test_an_empty_result_is_an_empty_graph(db):
    assert dot(db, ALL) == 'digraph "g" {\n  node [shape=box];\n}\n'


def test_errors_are_sqlite_errors(people):
    with raises_datalog("datalog_dot needs a query whose :find is an entity, an attribute and a "
                        "value, such as [:find ?e ?a ?v ...]; this one has 2 elements"):
        dot(people, "(query [:find ?e ?v :where [?e :person/age ?v]])")
    with raises_datalog('datalog_dot: the first :find element must be an entity, got "Alice"'):
        dot(people, "(query [:find ?v ?a ?e :where [?e ?a ?v] [?e :person/age _]])")
    with raises_datalog("datalog_dot: the second :find element must be an attribute, got 34"):
        dot(people, "(query [:find ?e ?v ?v :where [?e :person/age ?v]])")
    with raises_datalog("no graph table named 'nope'"):
        dot(people, ALL, "nope")
    with pytest.raises(sqlite3.Error, match="datalog: "):
        dot(people, "(query [:find")


def test_not_callable_from_a_schema_object(people):
    people.execute("CREATE VIEW v AS SELECT datalog_dot('g', '%s') AS d" % ALL)
    with pytest.raises(sqlite3.Error, match="unsafe use of datalog_dot"):
        people.execute("SELECT d FROM v").fetchall()
