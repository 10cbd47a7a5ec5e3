"""Differential test of rule evaluation: random small graphs, random rule programs (recursion,
mutual recursion, constants in calls, comparisons) and random queries that call the rules, run
through the extension and through a naive bottom-up Datalog evaluator written here; the answers
must agree.

This covers the engine's three ways of answering a rule call (magic sets for calls with bound
arguments, engine/eval/magic_sets.cpp; the graph walk for transitive closures,
engine/eval/closure.cpp; semi-naive evaluation, engine/eval/rule_evaluator.cpp), and queries that
call several rules, or one rule several times, with constants and shared variables.

Each case is a fixed seed (test id `test_rule_program_matches_reference[SEED]`, run one with
`-k 'reference[105]'`), so a failure is reproducible: its message holds the seed, the facts, the
rules, the query, the expected and the actual rows, and a script to paste into the sqlite3 shell
(`sqlite3 x.db -cmd '.load build/datalog'`).

A case: 3-8 entities :n0 :n1 ..., facts over 2-3 ref attributes (:link :next :edge, the value an
entity's keyword), :tag true and sometimes an integer :w; 2-4 rules r0 r1 ... of one or two
arguments, each with one or two bodies of patterns, calls (recursive, mutually recursive, with
constants) and comparisons, or the transitive closure of an attribute (left- or right-linear, the
shape closure.cpp walks), or an even/odd pair; a query of calls, patterns and comparisons in
random order. Half the queries have the shape magic sets rewrite with a demand taken from the
clauses before, (rA :c ?x) (rB ?x ?y), rB often rA again, sometimes with a call of rA on constants
only. Constants of query calls mostly come from the rule's relation (computed by the reference),
so that answers are seldom empty. Results are compared as sets, then as bags.

The reference follows the dialect (../shared/LANGUAGE.md and README.md):
- a keyword in value position and the entity of the same name are one value (ref values join
  with entities); integers are a different kind and never equal an entity;
- rules with one name form a disjunction; derived facts are a set;
- a query's result is a bag: one row per distinct binding of all the :where variables (each `_`
  a variable of its own), projected on :find;
- comparisons keep a row iff both sides are integers and the comparison holds.
The generator keeps variables sorted (entity or integer), so no case depends on comparisons
between kinds, and never uses `=` (structural in this dialect) or negation.
"""
import collections
import itertools
import random

import pytest

from conftest import connect, rows

N_CASES = 300
SEEDS = range(1, N_CASES + 1)

REF_ATTRS = (":link", ":next", ":edge")
CMP_OPS = {">": lambda x, y: x > y, "<": lambda x, y: x < y,
           ">=": lambda x, y: x >= y, "<=": lambda x, y: x <= y}


# --- terms and clauses -------------------------------------------------------------------------
# A term is ("var", "?x"), ("const", value) or ("_",). A value is an entity keyword text (":n3"),
# an int, or True (the :tag value). Clauses:
#   ("pat", e_term, attr, v_term)
#   ("call", name, [terms])
#   ("cmp", op, term, term)

def var(name):
    return ("var", name)


def const(value):
    return ("const", value)


WILD = ("_",)


def fmt_value(v):
    if v is True:
        return "true"
    return str(v)


def fmt_term(t):
    if t[0] == "var":
        return t[1]
    if t[0] == "const":
        return fmt_value(t[1])
    return "_"


def fmt_clause(c):
    if c[0] == "pat":
        return f"[{fmt_term(c[1])} {c[2]} {fmt_term(c[3])}]"
    if c[0] == "call":
        return "(" + " ".join([c[1]] + [fmt_term(t) for t in c[2]]) + ")"
    return f"[({c[1]} {fmt_term(c[2])} {fmt_term(c[3])})]"


def fmt_rule(name, head, body):
    head_text = "(" + " ".join([name] + head) + ")"
    return f"(rule [{head_text} " + " ".join(fmt_clause(c) for c in body) + "])"


def fmt_facts(facts):
    return "(transact [" + " ".join(f"[{e} {a} {fmt_value(v)}]" for e, a, v in facts) + "])"


def fmt_query(find, where):
    return f"(query [:find {' '.join(find)} :where " + " ".join(fmt_clause(c) for c in where) + "])"


def term_vars(t):
    return [t[1]] if t[0] == "var" else []


def clause_vars(c):
    if c[0] == "pat":
        return term_vars(c[1]) + term_vars(c[3])
    if c[0] == "call":
        return [v for t in c[2] for v in term_vars(t)]
    return term_vars(c[2]) + term_vars(c[3])


def positive_vars(clauses):
    return {v for c in clauses if c[0] != "cmp" for v in clause_vars(c)}


# --- the reference evaluator -------------------------------------------------------------------

def unify(term, value, binding):
    """The binding extended so that term matches value, or None."""
    if term[0] == "_":
        return binding
    if term[0] == "const":
        return binding if term[1] == value and type(term[1]) is type(value) else None
    name = term[1]
    if name in binding:
        old = binding[name]
        return binding if old == value and type(old) is type(value) else None
    extended = dict(binding)
    extended[name] = value
    return extended


def term_value(term, binding):
    return term[1] if term[0] == "const" else binding[term[1]]


def rename_wildcards(clauses):
    """Every `_` becomes a variable of its own (for bag semantics: each `_` is a distinct
    variable of the binding)."""
    counter = itertools.count()

    def fix(t):
        return var(f"_{next(counter)}") if t[0] == "_" else t

    out = []
    for c in clauses:
        if c[0] == "pat":
            out.append(("pat", fix(c[1]), c[2], fix(c[3])))
        elif c[0] == "call":
            out.append(("call", c[1], [fix(t) for t in c[2]]))
        else:
            out.append(c)
    return out


def solve(clauses, facts_by_attr, relations):
    """Every distinct binding (a dict) that satisfies the conjunction: positive clauses joined in
    order, then the comparisons as filters."""
    positives = [c for c in clauses if c[0] != "cmp"]
    comparisons = [c for c in clauses if c[0] == "cmp"]
    bindings = [{}]
    for c in positives:
        if c[0] == "pat":
            source = facts_by_attr.get(c[2], ())
            terms = (c[1], c[3])
        else:
            source = relations[c[1]]
            terms = c[2]
        nxt = []
        for b in bindings:
            for tup in source:
                nb = b
                for t, v in zip(terms, tup):
                    nb = unify(t, v, nb)
                    if nb is None:
                        break
                if nb is not None:
                    nxt.append(nb)
        bindings = nxt
    out = []
    for b in bindings:
        ok = True
        for _, op, x, y in comparisons:
            vx, vy = term_value(x, b), term_value(y, b)
            if not (type(vx) is int and type(vy) is int and CMP_OPS[op](vx, vy)):
                ok = False
                break
        if ok:
            out.append(b)
    unique = {frozenset(b.items()): b for b in out}
    return list(unique.values())


def fixpoint(facts, rule_list):
    """The facts by attribute, and every rule's relation (a set of tuples), by naive bottom-up
    evaluation: apply every rule to everything known until nothing new is derived."""
    facts_by_attr = collections.defaultdict(set)
    for e, a, v in facts:
        facts_by_attr[a].add((e, v))
    relations = {name: set() for name, _, _ in rule_list}
    rules = [(name, head, rename_wildcards(body)) for name, head, body in rule_list]
    changed = True
    while changed:
        changed = False
        derived = collections.defaultdict(set)
        for name, head, body in rules:
            for b in solve(body, facts_by_attr, relations):
                derived[name].add(tuple(b[h] for h in head))
        for name, tuples in derived.items():
            if not tuples <= relations[name]:
                relations[name] |= tuples
                changed = True
    return facts_by_attr, relations


def reference_answer(case):
    """The :find rows (a Counter of tuples): one per distinct binding of the :where variables."""
    facts_by_attr, relations = fixpoint(case.facts, case.rules)
    answer = collections.Counter()
    for b in solve(rename_wildcards(case.where), facts_by_attr, relations):
        answer[tuple(b[v] for v in case.find)] += 1
    return answer


# --- the generator -----------------------------------------------------------------------------

class Case:
    def __init__(self, seed, facts, rules, find, where):
        self.seed = seed
        self.facts = facts      # [(entity, attr, value)]
        self.rules = rules      # [(name, [head vars], [clauses])], one entry per body
        self.find = find        # ["?x", ...]
        self.where = where      # [clauses]

    def script(self):
        return "\n  ".join([fmt_facts(self.facts)] + [fmt_rule(*r) for r in self.rules])

    def query(self):
        return fmt_query(self.find, self.where)

    def columns(self):
        return ", ".join(f"c{i + 1}" for i in range(len(self.find)))

    def shell(self):
        """A script for the sqlite3 shell that reproduces the case."""
        return ("CREATE VIRTUAL TABLE g USING datalog;\n"
                f"SELECT datalog_exec('g', '{self.script()}');\n"
                f"SELECT {self.columns()} FROM datalog_q('g', '{self.query()}');")


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.fresh = itertools.count()
        self.guide = None   # the rules' relations, when generating the query
        self.p_const = 0.1  # how often a term is a constant

    def new_var(self):
        return f"?v{next(self.fresh)}"

    # facts
    def graph(self):
        rng = self.rng
        n = rng.randint(3, 8)
        self.ents = [f":n{i}" for i in range(n)]
        self.attrs = rng.sample(REF_ATTRS, rng.randint(2, 3))
        facts = []
        seen = set()

        def add(f):
            if f not in seen:
                seen.add(f)
                facts.append(f)

        for a in self.attrs:
            if rng.random() < 0.4:          # a chain (maybe a cycle), for deeper recursion
                order = rng.sample(self.ents, rng.randint(2, n))
                for x, y in zip(order, order[1:]):
                    add((x, a, y))
                if rng.random() < 0.4:
                    add((order[-1], a, order[0]))
            for _ in range(rng.randint(n // 2, n + 2)):
                add((rng.choice(self.ents), a, rng.choice(self.ents)))
        for e in self.ents:
            if rng.random() < 0.4:
                add((e, ":tag", True))
        self.has_w = rng.random() < 0.5
        if self.has_w:
            for e in self.ents:
                if rng.random() < 0.5:
                    add((e, ":w", rng.randint(0, 9)))
                    if rng.random() < 0.15:
                        add((e, ":w", rng.randint(0, 9)))
        rng.shuffle(facts)
        return facts

    # terms
    def term(self, sort, scope, allow_wild=True):
        """A term of the given sort ('e' entity or 'i' integer): a variable of scope (a dict
        var -> sort, extended with fresh variables), a fresh variable, a constant or `_`."""
        rng = self.rng
        r = rng.random()
        if allow_wild and r < 0.04:
            return WILD
        if r < 0.04 + self.p_const:
            if sort == "e":
                return const(rng.choice(self.ents))
            if rng.random() < 0.5:
                return const(rng.randint(0, 9))
        same = [v for v, s in scope.items() if s == sort]
        if same and rng.random() < 0.7:
            return var(rng.choice(same))
        v = self.new_var()
        scope[v] = sort
        return var(v)

    def fresh_var(self, sort, scope):
        v = self.new_var()
        scope[v] = sort
        return var(v)

    def positive(self, scope, callees, prefer_call=False):
        """A random pattern or call of one of the rules callees, over the scope."""
        rng = self.rng
        kinds = ["ref", "ref", "tag"] + (["w"] if self.has_w else [])
        if callees:
            kinds += ["call", "call", "call"]
            if prefer_call:
                kinds = ["call"]
        kind = rng.choice(kinds)
        if kind == "ref":
            return ("pat", self.term("e", scope), rng.choice(self.attrs), self.term("e", scope))
        if kind == "tag":
            return ("pat", self.term("e", scope), ":tag", const(True))
        if kind == "w":
            return ("pat", self.term("e", scope), ":w", self.term("i", scope))
        name = rng.choice(callees)
        args = [self.term(s, scope) for s in self.sigs[name]]
        if self.guide and self.guide[name] and rng.random() < 0.8:
            # constants taken from one tuple of the relation, so that the call has answers
            tup = rng.choice(sorted(self.guide[name], key=repr))
            args = [const(v) if t[0] == "const" else t for t, v in zip(args, tup)]
        return ("call", name, args)

    def binder(self, v, sort, scope, callees):
        """A positive clause that binds v."""
        rng = self.rng
        if sort == "i":
            return ("pat", self.term("e", scope, allow_wild=True), ":w", var(v))
        choice = rng.random()
        if choice < 0.5:
            other = self.term("e", scope)
            a = rng.choice(self.attrs)
            return ("pat", var(v), a, other) if rng.random() < 0.5 else ("pat", other, a, var(v))
        if choice < 0.65:
            return ("pat", var(v), ":tag", const(True))
        if not callees:
            return ("pat", var(v), ":tag", const(True))
        name = rng.choice(callees)
        sig = self.sigs[name]
        pos = rng.choice([i for i, s in enumerate(sig) if s == "e"])
        args = [var(v) if i == pos else self.term(s, scope) for i, s in enumerate(sig)]
        return ("call", name, args)

    def comparison(self, scope, bound):
        rng = self.rng
        ints = sorted(v for v in bound if scope.get(v) == "i")
        if not ints:
            return None
        op = rng.choice(list(CMP_OPS))
        x = var(rng.choice(ints))
        y = var(rng.choice(ints)) if len(ints) > 1 and rng.random() < 0.3 else const(rng.randint(0, 9))
        return ("cmp", op, x, y) if rng.random() < 0.8 else ("cmp", op, y, x)

    def random_body(self, head, sig, callees):
        rng = self.rng
        scope = dict(zip(head, sig))
        body = [self.positive(scope, callees) for _ in range(rng.randint(1, 2))]
        for v, s in zip(head, sig):
            if v not in positive_vars(body):
                body.append(self.binder(v, s, scope, callees))
        if rng.random() < 0.3:
            c = self.comparison(scope, positive_vars(body))
            if c:
                body.append(c)
        rng.shuffle(body)
        return body

    def closure_bodies(self, name):
        """The transitive closure of an attribute or of another two-place entity rule: a base
        body and a left- or right-linear (or doubly recursive) recursive body."""
        rng = self.rng
        others = [n for n, s in self.sigs.items() if s == ("e", "e") and n != name]

        def step(x, y):
            if others and rng.random() < 0.15:
                return ("call", rng.choice(others), [var(x), var(y)])
            return ("pat", var(x), edge, var(y))

        edge = rng.choice(self.attrs)
        base = [step("?a", "?b")]
        shape = rng.choice(["left", "left", "right", "double"])
        if shape == "left":
            rec = [step("?a", "?m"), ("call", name, [var("?m"), var("?b")])]
        elif shape == "right":
            rec = [("call", name, [var("?a"), var("?m")]), step("?m", "?b")]
        else:
            rec = [("call", name, [var("?a"), var("?m")]), ("call", name, [var("?m"), var("?b")])]
        if rng.random() < 0.3:
            rec.reverse()
        bodies = [(["?a", "?b"], base), (["?a", "?b"], rec)]
        if rng.random() < 0.3:
            bodies.reverse()
        return bodies

    def mutual_bodies(self, name, partner):
        """One half of an even/odd pair: name(a, b) :- edge(a, m), partner(m, b)."""
        edge = self.rng.choice(self.attrs)
        return [(["?a", "?b"], [("pat", var("?a"), edge, var("?m")),
                                ("call", partner, [var("?m"), var("?b")])])]

    def program(self):
        rng = self.rng
        k = rng.randint(2, 4)
        names = [f"r{i}" for i in range(k)]
        self.sigs = {}
        for n in names:
            arity = rng.choice([1, 2, 2, 2])
            if arity == 1:
                self.sigs[n] = ("e",)
            elif self.has_w and rng.random() < 0.2:
                self.sigs[n] = ("e", "i")
            else:
                self.sigs[n] = ("e", "e")
        rules = []
        ee = [n for n in names if self.sigs[n] == ("e", "e")]
        pair = None
        if len(ee) >= 2 and rng.random() < 0.25:
            pair = rng.sample(ee, 2)
        self.p_const = 0.06
        for i, n in enumerate(names):
            sig = self.sigs[n]
            head = ["?a", "?b"][:len(sig)]
            if pair and n == pair[0]:
                bodies = self.mutual_bodies(n, pair[1])
            elif pair and n == pair[1]:
                bodies = self.mutual_bodies(n, pair[0])
                bodies.append((head, [("pat", var("?a"), rng.choice(self.attrs), var("?b"))]))
            elif sig == ("e", "e") and rng.random() < 0.4:
                bodies = self.closure_bodies(n)
            else:
                # the first body calls only rules defined before (so every rule can derive
                # something), a second one any rule (recursion, mutual recursion)
                bodies = [(head, self.random_body(head, sig, names[:i]))]
                if rng.random() < 0.6:
                    bodies.append((head, self.random_body(head, sig, names)))
            rules.extend((n, h, b) for h, b in bodies)
        rng.shuffle(rules)
        return rules

    def chain(self, scope, names):
        """A call with a constant whose answers feed the next calls through a shared variable,
        (rA :c ?x) (rB ?x ?y): the shape that magic sets rewrite with a demand taken from the
        clauses before. rB is often rA again."""
        rng = self.rng
        two = [n for n in names if len(self.sigs[n]) == 2]
        live = [n for n in two if self.guide[n]]
        first = rng.choice(live if live and rng.random() < 0.8 else two or names)
        sig = self.sigs[first]
        rel = sorted(self.guide[first], key=repr)
        tup = rng.choice(rel) if rel and rng.random() < 0.85 else None
        at = rng.randrange(len(sig))
        args = []
        for i, s in enumerate(sig):
            if i == at:
                if tup:
                    args.append(const(tup[i]))
                else:
                    args.append(const(rng.choice(self.ents) if s == "e" else rng.randint(0, 9)))
            else:
                v = self.new_var()
                scope[v] = s
                args.append(var(v))
        where = [("call", first, args)]
        out = next((t[1] for t in args if t[0] == "var"), None)  # the first call's answer
        self.p_const = 0.1
        for _ in range(rng.choice([1, 1, 1, 2])):
            name = first if rng.random() < 0.5 else rng.choice(names)
            sig = self.sigs[name]
            args = [self.term(s, scope) if rng.random() < 0.3 else self.fresh_var(s, scope)
                    for s in sig]
            fits = [(i, v) for i, s in enumerate(sig) for v, vs in scope.items() if vs == s]
            if at < len(sig) and out and scope[out] == sig[at] and rng.random() < 0.7:
                args[at] = var(out)  # the answer where the constant was: (r :c ?x) (r ?x ?y)
            elif fits:
                i, v = rng.choice(fits)
                args[i] = var(v)
            where.append(("call", name, args))
        if rng.random() < 0.2 and self.guide[first]:
            # and a call of the same rule with constants only: two demands of one adornment
            tup = rng.choice(sorted(self.guide[first], key=repr))
            where.append(("call", first, [const(v) for v in tup]))
        return where

    def query(self, relations):
        rng = self.rng
        self.guide = relations
        scope = {}
        names = list(self.sigs)
        self.p_const = 0.25
        if rng.random() < 0.5:
            where = self.chain(scope, names)
            if rng.random() < 0.2:
                where.append(self.positive(scope, names))
        else:
            where = [self.positive(scope, names, prefer_call=True)]
            for _ in range(rng.choice([0, 1, 1, 2])):
                where.append(self.positive(scope, names, prefer_call=rng.random() < 0.6))
        bound = sorted(positive_vars(where), key=lambda v: int(v[2:]))
        if not bound:
            v = self.new_var()
            scope[v] = "e"
            where.append(self.binder(v, "e", scope, names))
            bound = sorted(positive_vars(where), key=lambda v: int(v[2:]))
        ents = [v for v in bound if scope[v] == "e"]
        if self.has_w and ents and rng.random() < 0.25:
            # a weight of an answer, compared: a filter whose variable a later pattern binds
            w = self.fresh_var("i", scope)
            where.append(("pat", var(rng.choice(ents)), ":w", w))
            bound = sorted(positive_vars(where), key=lambda v: int(v[2:]))
            where.append(("cmp", rng.choice(list(CMP_OPS)), w, const(rng.randint(0, 9))))
        elif rng.random() < 0.3:
            c = self.comparison(scope, bound)
            if c:
                where.append(c)
        rng.shuffle(where)
        find = rng.sample(bound, min(len(bound), rng.choice([1, 2, 2])))
        return find, where


def make_case(seed):
    g = Gen(seed)
    facts = g.graph()
    rules = g.program()
    find, where = g.query(fixpoint(facts, rules)[1])
    return Case(seed, facts, rules, find, where)


# --- running a case through the extension ------------------------------------------------------

def engine_answer(conn, case):
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_exec('g', ?)", (case.script(),))
    got = rows(conn, f"SELECT {case.columns()} FROM datalog_q('g', ?)", (case.query(),))
    return collections.Counter(tuple(r) for r in got)


def show(counter):
    items = sorted(counter.items(), key=lambda kv: repr(kv[0]))
    return "{" + ", ".join(" ".join(fmt_value(v) for v in t) + (f" x{n}" if n > 1 else "")
                           for t, n in items) + "}"


def describe(case, expected, actual):
    return (f"\nseed {case.seed}: the extension's answer differs from the reference\n"
            f"facts:    {fmt_facts(case.facts)}\n"
            "rules:\n" + "".join(f"  {fmt_rule(*r)}\n" for r in case.rules) +
            f"query:    {case.query()}\n"
            f"expected: {show(expected)}\n"
            f"actual:   {actual if isinstance(actual, str) else show(actual)}\n"
            f"in the sqlite3 shell:\n{case.shell()}\n")


@pytest.mark.parametrize("seed", SEEDS)
def test_rule_program_matches_reference(tmp_path, seed):
    case = make_case(seed)
    expected = reference_answer(case)
    conn = connect(tmp_path / "diff.db")
    try:
        try:
            actual = engine_answer(conn, case)
        except Exception as e:  # an error is a wrong answer too; say which case raised it
            pytest.fail(describe(case, expected, f"error: {e!r}"))
    finally:
        conn.close()
    # First as sets (which rows), then as bags (how many times each: one row per distinct
    # binding of the :where variables).
    assert set(actual) == set(expected), describe(case, expected, actual)
    assert actual == expected, "(same rows, wrong multiplicities)" + describe(case, expected, actual)


# --- the reported examples, as plain tests -----------------------------------------------------

EXAMPLE_SCRIPT = """
(transact [[:x :link :y] [:y :link :z] [:z :tag true]])
(rule [(hop ?a ?b) [?a :link ?b]])
(rule [(path ?a ?b) [?a :link ?b]])
(rule [(path ?a ?b) [?a :link ?m] (path ?m ?b)])
(rule [(tagged ?a) [?a :tag true]])
"""


@pytest.fixture
def example(tmp_path):
    conn = connect(tmp_path / "example.db")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("SELECT datalog_exec('g', ?)", (EXAMPLE_SCRIPT,))
    yield conn
    conn.close()


def test_closure_call_joined_with_another_rule(example):
    assert rows(example, "SELECT c1 FROM datalog_q('g', ?)",
                ("(query [:find ?b :where (path :x ?b) (tagged ?b)])",)) == [(":z",)]


def test_closure_called_twice_through_a_shared_variable(example):
    assert rows(example, "SELECT c1, c2 FROM datalog_q('g', ?)",
                ("(query [:find ?b ?c :where (path :x ?b) (path ?b ?c)])",)) == [(":y", ":z")]


def test_non_recursive_rule_called_twice_through_a_shared_variable(example):
    assert rows(example, "SELECT c1, c2 FROM datalog_q('g', ?)",
                ("(query [:find ?b ?c :where (hop :x ?b) (hop ?b ?c)])",)) == [(":y", ":z")]


def test_reference_evaluator_on_the_examples():
    """The reference itself, on the examples above (guards the test, not the engine)."""
    facts = [(":x", ":link", ":y"), (":y", ":link", ":z"), (":z", ":tag", True)]
    rules = [("hop", ["?a", "?b"], [("pat", var("?a"), ":link", var("?b"))]),
             ("path", ["?a", "?b"], [("pat", var("?a"), ":link", var("?b"))]),
             ("path", ["?a", "?b"], [("pat", var("?a"), ":link", var("?m")),
                                     ("call", "path", [var("?m"), var("?b")])]),
             ("tagged", ["?a"], [("pat", var("?a"), ":tag", const(True))])]
    x = const(":x")
    for find, where, want in [
            (["?b"], [("call", "path", [x, var("?b")]), ("call", "tagged", [var("?b")])],
             {(":z",): 1}),
            (["?b", "?c"], [("call", "path", [x, var("?b")]),
                            ("call", "path", [var("?b"), var("?c")])], {(":y", ":z"): 1}),
            (["?b", "?c"], [("call", "hop", [x, var("?b")]),
                            ("call", "hop", [var("?b"), var("?c")])], {(":y", ":z"): 1}),
            (["?a"], [("pat", var("?a"), ":link", WILD)], {(":x",): 1, (":y",): 1}),
            (["?b"], [("call", "path", [var("?a"), var("?b")])], {(":y",): 1, (":z",): 2})]:
        assert reference_answer(Case(0, facts, rules, find, where)) == want
