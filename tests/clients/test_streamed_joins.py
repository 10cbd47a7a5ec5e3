"""A chain of entity look-ups from a constant ([$e :next ?m] [?m :next ?end] [?end :val ?v])
streams on a committed snapshot, one binding at a time (engine/eval/stream_shape.h), and is
evaluated in full inside a write transaction. Both must give the same rows, duplicates
included, over a graph with history, valid time, idents stored as values and several values
per attribute."""
import pytest

from conftest import rows

SETUP = [
    "(transact [[:a :next :b] [:b :next :c] [:b :next :d] [:c :val 1] [:d :val 1] [:d :val 2]"
    " [:a :name \"a\"] [:b :name \"bee\"] [:c :name \"sea\"] [:d :name \"dee\"] [:a :val 5]])",
    # An ident stored as a keyword value (not a ref) still names the entity to look up.
    "(transact [[:e :next :c] [:e :label :d]])",
    "(retract [[:d :val 2]])",
    "(transact [[:d :val 3 {:valid-from \"2020-01-01\" :valid-to \"2021-01-01\"}]])",
    "(transact [[:b :next :a]])",
]

QUERIES = [
    "(query [:find ?v :where [:a :next ?m] [?m :next ?end] [?end :val ?v]])",
    "(query [:find ?m ?end ?v :where [:a :next ?m] [?m :next ?end] [?end :val ?v]])",
    "(query [:find ?n :where [?end :name ?n] [?m :next ?end] [:a :next ?m]])",
    "(query [:find ?n ?v :where [:a :next ?m] [?m :next ?end] [?end :name ?n] [?end :val ?v]])",
    "(query [:find ?v ?w :where [:a :next ?m] [?m :next ?end] [?end :val ?v] [(* ?v 10) ?w] [(> ?w 5)]])",
    "(query [:find ?n :where [:e :label ?l] [?l :name ?n]])",
    "(query [:find ?n :where [:a :name ?s] [?s :name ?n]])",  # a string names no entity
    "(query [:find ?x :where [:a :next ?m] [?m :next ?x] [?x :next _]])",
    "(query [:find ?v :as-of 2 :where [:a :next ?m] [?m :next ?end] [?end :val ?v]])",
    "(query [:find ?v :valid-at \"2020-06-01\" :where [:a :next ?m] [?m :next ?end] [?end :val ?v]])",
    "(query [:find ?v :any-valid-time :where [:a :next ?m] [?m :next ?end] [?end :val ?v]])",
    "(query [:find ?v :where [:nobody :next ?m] [?m :val ?v]])",
    # Roots found by their value: a string, and an integer several entities hold.
    "(query [:find ?x ?n :where [?x :name \"bee\"] [?x :next ?y] [?y :name ?n]])",
    "(query [:find ?x ?n :where [?y :name ?n] [?x :next ?y] [?x :val 1]])",
    "(query [:find ?x :where [?x :name \"nobody\"] [?x :next ?y]])",
]


@pytest.fixture
def chains(db):
    for script in SETUP:
        db.execute("SELECT datalog_exec('g', ?)", (script,))
    return db


def answer(db, query):
    return sorted(rows(db, "SELECT c1, c2, c3 FROM datalog_q('g', ?)", (query,)), key=repr)


@pytest.mark.parametrize("query", QUERIES)
def test_a_streamed_chain_gives_the_rows_of_full_evaluation(chains, query):
    streamed = answer(chains, query)
    chains.execute("BEGIN")
    chains.execute("INSERT INTO g(e, a, v) VALUES (':unrelated', ':note', 1)")  # a writer: evaluated in full
    evaluated = answer(chains, query)
    chains.execute("ROLLBACK")
    assert streamed == evaluated


def test_streamed_chain_rows(chains):
    """The rows themselves, one per solution: :a leads to :b, and :b to :c, :d and back to :a."""
    assert answer(chains, QUERIES[0]) == [(1, None, None), (1, None, None), (5, None, None)]
    assert answer(chains, QUERIES[1]) == [(":b", ":a", 5), (":b", ":c", 1), (":b", ":d", 1)]
    assert answer(chains, QUERIES[3]) == [("a", 5, None), ("dee", 1, None), ("sea", 1, None)]
    assert answer(chains, QUERIES[5]) == [("dee", None, None)]
    assert answer(chains, QUERIES[6]) == []
    assert answer(chains, QUERIES[7]) == [(":a", None, None)]
    # Before the retraction of [:d :val 2] and the link back to :a (tx 5).
    assert answer(chains, QUERIES[8]) == [(1, None, None), (1, None, None), (2, None, None)]
    assert answer(chains, QUERIES[9]) == []  # the links were not valid yet in 2020
    assert answer(chains, QUERIES[10]) == [(1, None, None), (1, None, None), (3, None, None), (5, None, None)]
    assert answer(chains, QUERIES[12]) == [(":b", "a", None), (":b", "dee", None), (":b", "sea", None)]
    assert answer(chains, QUERIES[13]) == []  # :c and :d lead nowhere
    assert answer(chains, QUERIES[14]) == []


def test_a_named_chain_table_answers_each_key_and_stops_early(chains):
    chains.execute("CREATE VIRTUAL TABLE temp.two_on USING datalog_query(g, "
                   "'(query [:find ?end ?v :where [$e :next ?m] [?m :next ?end] [?end :val ?v]])')")
    for _ in range(3):
        assert sorted(rows(chains, "SELECT * FROM two_on(':a')")) == [(":a", 5), (":c", 1), (":d", 1)]
        assert rows(chains, "SELECT * FROM two_on(':e')") == []  # :c has no :next
        assert rows(chains, "SELECT * FROM two_on(':nobody')") == []
        assert len(rows(chains, "SELECT * FROM two_on(':a') LIMIT 1")) == 1
        assert rows(chains, "SELECT count(*) FROM two_on(':b')") == [(0,)]  # :a, :c and :d lead nowhere twice


def test_a_query_table_sees_attributes_and_idents_made_after_its_first_call(db):
    """A streamed query keeps the ids of its attributes for one committed state of the graph: a
    later state, or a rebuilt index, looks them up again."""
    db.execute("CREATE VIRTUAL TABLE temp.late USING datalog_query(g, "
               "'(query [:find ?n :where [$e :late ?m] [?m :name ?n]])')")
    assert rows(db, "SELECT * FROM late(':a')") == []
    db.execute("SELECT datalog_exec('g', '(transact [[:a :late :b] [:b :name \"bee\"]])')")
    assert rows(db, "SELECT * FROM late(':a')") == [("bee",)]
    db.execute("SELECT datalog_exec('g', '(transact [[:a :late :c] [:c :name \"sea\"]])')")
    assert sorted(rows(db, "SELECT * FROM late(':a')")) == [("bee",), ("sea",)]
    db.execute("SELECT datalog_rebuild('g')")
    assert sorted(rows(db, "SELECT * FROM late(':a')")) == [("bee",), ("sea",)]


def random_chain(rng):
    """A chain-shaped query over the random graph: a constant root (an entity, or a value),
    then look-ups from variables bound before, each value new; filters and bindings on the way.
    The patterns come shuffled: the stream finds the chain's order itself."""
    constants = {":v": lambda: str(rng.randrange(9)), ":s": lambda: f"\"s{rng.randrange(3)}\""}
    patterns, entities, numbers, bound, expressions = [], [], [], [], []
    if rng.random() < 0.7:
        patterns.append(f"[:n{rng.randrange(12)} {rng.choice([':p', ':q'])} ?x0]")
        entities.append("?x0")
    else:
        attribute = rng.choice([":v", ":s"])
        patterns.append(f"[?x0 {attribute} {constants[attribute]()}]")
        entities.append("?x0")
    bound.append("?x0")
    for i in range(1, rng.randrange(2, 5)):
        entity = rng.choice(entities)
        attribute = rng.choice([":p", ":q", ":p", ":q", ":v", ":s"])
        kind = rng.random()
        if attribute in constants and kind < 0.3:
            value = constants[attribute]()
        elif kind < 0.4:
            value = "_"
        else:
            value = f"?x{i}"
            bound.append(value)
            (entities if attribute in (":p", ":q") else numbers if attribute == ":v" else []).append(value)
        patterns.append(f"[{entity} {attribute} {value}]")
    if numbers and rng.random() < 0.5:
        expressions.append(f"[(> {rng.choice(numbers)} 2)]")
    if rng.random() < 0.3:
        expressions.append(f"[(str {rng.choice(bound)} \"!\") ?w]")
        bound.append("?w")
    rng.shuffle(patterns)
    find = rng.sample(bound, min(len(bound), rng.randrange(1, 4)))
    return f"(query [:find {' '.join(find)} :where {' '.join(patterns + expressions)}])"


def test_random_chains_give_the_rows_of_full_evaluation(db):
    import random
    rng = random.Random(20261207)
    facts = []
    for e in range(12):
        for _ in range(rng.randrange(1, 5)):
            facts.append(f"[:n{e} {rng.choice([':p', ':q'])} :n{rng.randrange(12)}]")
        for _ in range(rng.randrange(0, 3)):
            facts.append(f"[:n{e} :v {rng.randrange(9)}]")
        if rng.random() < 0.6:
            facts.append(f"[:n{e} :s \"s{rng.randrange(3)}\"]")
    db.execute("SELECT datalog_exec('g', ?)", (f"(transact [{' '.join(facts)}])",))
    db.execute("SELECT datalog_exec('g', ?)", (f"(retract [{facts[0]} {facts[5]}])",))
    compared = 0
    for _ in range(300):
        query = random_chain(rng)
        try:
            streamed = answer(db, query)
        except Exception as error:  # a query the analyzer rejects is rejected both ways
            db.execute("BEGIN")
            db.execute("INSERT INTO g(e, a, v) VALUES (':unrelated', ':note', 1)")
            with pytest.raises(type(error)):
                answer(db, query)
            db.execute("ROLLBACK")
            continue
        db.execute("BEGIN")
        db.execute("INSERT INTO g(e, a, v) VALUES (':unrelated', ':note', 1)")
        evaluated = answer(db, query)
        db.execute("ROLLBACK")
        assert streamed == evaluated, query
        compared += 1 if streamed else 0
    assert compared > 50  # enough queries found rows to mean something
