#!/usr/bin/python3
"""Turns one workload_bench JSON into the report: derived figures, docs/BENCHMARKS.md, plots.

    bench/render.py RUN.json --json OUT.json --markdown BENCHMARKS.md --plots DIR
                    [--rerun TEXT] [--commit HASH] [--build TEXT] [--note TEXT] [--require GROUP,...]

RUN.json is workload_bench's output, or a rendered OUT.json (to render it again).

Derived figures (added to OUT.json under "derived"): for every read workload and size the
ratio of each sqlite-datalog path to plain SQLite from the same run; for every workload and
path the growth exponent between consecutive sizes (the log-log slope of median latency against
size) and over its whole range; and the issue's targets with the measured value and a verdict.
Plots: one PNG per group family, median latency against size on log-log axes, drawn by gnuplot.
Exits non-zero when the input is not a complete run (the CI smoke test relies on that).
Standard library only; run it with /usr/bin/python3.
"""
import argparse
import pathlib
import json
import math
import os
import subprocess
import sys
from collections import defaultdict

OURS_PATHS = ("named", "temp", "adhoc", "exec")

# Minigraf's published medians in µs (seeds/000, Intel i7-1065G7; another machine, so orders of
# magnitude only), keyed by (group, workload, size).
MINIGRAF_US = {
    ("query", "point_entity", 1000): 1260, ("query", "point_entity", 10000): 8600,
    ("query", "point_entity", 100000): 266e3, ("query", "point_entity", 1000000): 4.33e6,
    ("query", "point_attribute", 1000): 1160, ("query", "point_attribute", 10000): 14.7e3,
    ("query", "point_attribute", 100000): 258e3, ("query", "point_attribute", 1000000): 4.29e6,
    ("query", "join_3pattern", 1000): 4380, ("query", "join_3pattern", 10000): 53.6e3,
    ("query", "join_3pattern", 100000): 857e3, ("query", "join_3pattern", 1000000): 12.93e6,
    ("time_travel", "as_of_counter", 1000): 1270, ("time_travel", "as_of_counter", 10000): 16.2e3,
    ("time_travel", "as_of_counter", 100000): 276e3, ("time_travel", "as_of_counter", 1000000): 4.49e6,
    ("time_travel", "valid_at", 1000): 1270, ("time_travel", "valid_at", 10000): 16.0e3,
    ("time_travel", "valid_at", 100000): 272e3, ("time_travel", "valid_at", 1000000): 4.47e6,
    ("prepared", "value_lookup", 1000): 1520, ("prepared", "value_lookup", 10000): 17.3e3,
    ("prepared", "threshold_filter", 1000): 5340, ("prepared", "threshold_filter", 10000): 57.8e3,
    ("recursion", "chain", 10): 2750, ("recursion", "chain", 100): 16.27e6,
    ("recursion", "fanout_w10_d3", 1110): 5.12e6,
    ("negation", "not_scale", 1000): 101.84e3, ("negation", "not_scale", 10000): 6.986e6,
    ("negation", "not_join_scale", 1000): 226.82e3, ("negation", "not_join_scale", 10000): 22.898e6,
    ("negation", "not_rule_body", 1000): 172.96e3, ("negation", "not_rule_body", 10000): 16.883e6,
    ("disjunction", "or_scale", 1000): 644.76e3, ("disjunction", "or_scale", 10000): 68.929e6,
    ("disjunction", "or_join_scale", 1000): 683.99e3, ("disjunction", "or_join_scale", 10000): 72.751e6,
    ("disjunction", "or_rule_body", 1000): 26.468e3, ("disjunction", "or_rule_body", 10000): 2.123e6,
    ("aggregation", "count_scale", 1000): 1770, ("aggregation", "count_scale", 10000): 9720,
    ("aggregation", "sum_scale", 1000): 1881, ("aggregation", "sum_scale", 10000): 22.745e3,
    ("aggregation", "grouped_count_scale", 1000): 4038, ("aggregation", "grouped_count_scale", 10000): 51.55e3,
    ("aggregation", "with_grouped_sum", 1000): 670.85e3, ("aggregation", "with_grouped_sum", 10000): 67.266e6,
    ("expr", "filter_scale", 1000): 1799, ("expr", "filter_scale", 10000): 22.738e3,
    ("expr", "binding_scale", 1000): 2037, ("expr", "binding_scale", 10000): 23.603e3,
    ("expr", "binding_into_agg", 1000): 1935, ("expr", "binding_into_agg", 10000): 23.294e3,
    ("open", "existing_graph", 1000): 7240, ("open", "existing_graph", 10000): 12.2e3,
    ("open", "existing_graph", 100000): 118.9e3, ("open", "existing_graph", 1000000): 1.314e6,
}

# Group families drawn together in one plot.
FAMILIES = {
    "queries": ["query", "time_travel"],
    "btree_and_prepared": ["btree_lookup", "prepared"],
    "recursion": ["recursion"],
    "negation": ["negation"],
    "disjunction": ["disjunction"],
    "aggregation": ["aggregation", "udf"],
    "expressions": ["expr", "temporal_metadata"],
    "windows": ["window"],
    "writes": ["insert", "retract"],
    "open": ["open"],
}


def fmt_us(us):
    if us is None:
        return "–"
    if us < 1000:
        return f"{us:.1f} µs" if us < 100 else f"{us:.0f} µs"
    if us < 1e6:
        return f"{us / 1000:.2f} ms"
    return f"{us / 1e6:.2f} s"


def fmt_size(n):
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}K"
    return str(n)


def fmt_ratio(r):
    return "–" if r is None else f"{r:.2f}"


def fmt_rate(r):
    if r is None:
        return "–"
    if r >= 1e6:
        return f"{r / 1e6:.2f} M/s"
    if r >= 1e3:
        return f"{r / 1e3:.1f} K/s"
    return f"{r:.0f}/s"


def slope(points):
    """Log-log slope between the first and last (size, median) points."""
    if len(points) < 2:
        return None
    (n1, t1), (n2, t2) = points[0], points[-1]
    if n1 == n2 or t1 <= 0 or t2 <= 0:
        return None
    return math.log(t2 / t1) / math.log(n2 / n1)


class Run:
    def __init__(self, doc):
        self.doc = doc
        self.meta = doc["meta"]
        self.results = doc["results"]
        # (group, workload, size, impl) -> record
        self.by_key = {(r["group"], r["workload"], r["size"], r["impl"]): r for r in self.results}

    def get(self, group, workload, size, impl):
        return self.by_key.get((group, workload, size, impl))

    def median(self, group, workload, size, impl):
        r = self.get(group, workload, size, impl)
        return r.get("median_us") if r else None

    def sizes(self, group, workload):
        return sorted({r["size"] for r in self.results if r["group"] == group and r["workload"] == workload})

    def series(self, group, workload, impl):
        pts = []
        for n in self.sizes(group, workload):
            m = self.median(group, workload, n, impl)
            if m is not None:
                pts.append((n, m))
        return pts

    def timed_workloads(self, groups):
        seen = []
        for r in self.results:
            if r["group"] in groups and "median_us" in r and (r["group"], r["workload"]) not in seen:
                seen.append((r["group"], r["workload"]))
        return seen


def derive(run):
    ratios, growth = [], []
    for group, workload in run.timed_workloads({r["group"] for r in run.results}):
        for n in run.sizes(group, workload):
            base = run.median(group, workload, n, "sqlite")
            for impl in OURS_PATHS:
                ours = run.median(group, workload, n, impl)
                if ours is not None and base:
                    ratios.append({"group": group, "workload": workload, "size": n, "impl": impl,
                                   "ratio": ours / base})
        for impl in OURS_PATHS + ("sqlite",):
            pts = run.series(group, workload, impl)
            if len(pts) < 2:
                continue
            steps = [{"from": a[0], "to": b[0], "exponent": slope([a, b])} for a, b in zip(pts, pts[1:])]
            growth.append({"group": group, "workload": workload, "impl": impl,
                           "from": pts[0][0], "to": pts[-1][0], "exponent": slope(pts), "steps": steps})
    return ratios, growth


def ratio_of(run, group, workload, size, impl):
    ours = run.median(group, workload, size, impl)
    base = run.median(group, workload, size, "sqlite")
    return ours / base if ours is not None and base else None


def largest(run, group, workload, at_most=None):
    sizes = [n for n in run.sizes(group, workload) if at_most is None or n <= at_most]
    return sizes[-1] if sizes else None


def targets(run):
    rows = []

    def add(name, size, value, shown, ok, note=""):
        rows.append({"target": name, "size": size, "value": value, "shown": shown,
                     "met": None if value is None else bool(ok), "note": note})

    for group, wl in [("query", "point_entity"), ("query", "join_3pattern"),
                      ("time_travel", "as_of_counter"), ("time_travel", "valid_at")]:
        n = largest(run, group, wl)
        r = ratio_of(run, group, wl, n, "named") if n else None
        add(f"{wl}: named query table ≤ 2× plain SQLite", n, r, fmt_ratio(r), r is not None and r <= 2.0)
        a = run.median(group, wl, n, "adhoc") if n else None
        add(f"{wl}: ad hoc ≤ 30 µs", n, a, fmt_us(a), a is not None and a <= 30.0)
    for group, wl in [("recursion", "chain"), ("recursion", "fanout_w10_d3")]:
        for n in run.sizes(group, wl):
            if wl == "chain" and n < 100:
                continue
            r = ratio_of(run, group, wl, n, "named")
            label = f"chain depth {n}" if wl == "chain" else "fanout w10_d3"
            add(f"recursion {label}: ratio ≤ 1.0", n, r, fmt_ratio(r), r is not None and r <= 1.0)
    for group, wl in [("negation", "not_scale"), ("negation", "not_join_scale"),
                      ("disjunction", "or_scale"), ("disjunction", "or_join_scale"),
                      ("aggregation", "grouped_count_scale"), ("aggregation", "with_grouped_sum")]:
        n = largest(run, group, wl, 10_000)
        r = ratio_of(run, group, wl, n, "named") if n else None
        add(f"{wl}: ratio ≤ 1.0", n, r, fmt_ratio(r), r is not None and r <= 1.0)
    for group, wl in [("aggregation", "count_scale"), ("aggregation", "sum_scale"),
                      ("query", "point_attribute")]:
        n = largest(run, group, wl)
        r = ratio_of(run, group, wl, n, "named") if n else None
        add(f"{wl}: ratio ≤ 1.5", n, r, fmt_ratio(r), r is not None and r <= 1.5)
    for group, wl in [("query", "point_entity"), ("query", "point_attribute"), ("query", "join_3pattern"),
                      ("time_travel", "as_of_counter"), ("time_travel", "valid_at")]:
        pts = [p for p in run.series(group, wl, "named") if p[0] >= 10_000]
        e = slope(pts)
        span = f"{fmt_size(pts[0][0])}→{fmt_size(pts[-1][0])}" if len(pts) >= 2 else None
        add(f"{wl}: growth exponent 10K→1M ≤ 1.1", span, e, fmt_ratio(e), e is not None and e <= 1.1)
    for group in ("insert", "retract"):
        n = largest(run, group, "batch_100")
        ours = run.get(group, "batch_100", n, "exec") if n else None
        base = run.get(group, "batch_100", n, "sqlite") if n else None
        if ours and base:
            r = ours["facts_per_s"] / base["facts_per_s"]
            # The same pages written and synced without LMDB: what this disk charges for them.
            replay = run.median("fsync", "commit_io_batch_100", n, "os") if group == "insert" else None
            io = (f"; its {ours['pages_per_call']:.0f} pages' I/O without LMDB {fmt_us(replay)}, "
                  f"ours {fmt_us(ours['median_us'])}") if replay and "pages_per_call" in ours else ""
            add(f"{group} batch_100: facts/s ≥ baseline", n, r,
                f"{fmt_rate(ours['facts_per_s'])} vs {fmt_rate(base['facts_per_s'])} ({r:.2f}×{io})", r >= 1.0)
        else:
            add(f"{group} batch_100: facts/s ≥ baseline", n, None, "–", False)
    probes = [run.median("fsync", wl, 0, "os") for wl in ("pwrite_4k_fdatasync", "pwrite_4k_fsync")]
    probes = [p for p in probes if p]
    floor = min(probes) if probes else None
    n = largest(run, "insert", "single_fact")
    commit = run.median("insert", "single_fact", n, "exec") if n else None
    r = commit / floor if commit and floor else None
    # The baseline's durable commit, measured in the same run, shows what one sync costs here.
    plain_commit = run.median("insert", "single_fact", n, "sqlite") if n else None
    baseline = f"; SQLite {fmt_us(plain_commit)}" if plain_commit else ""
    replay = run.median("fsync", "commit_io_single_fact", n, "os") if n else None
    if replay:
        baseline += f"; its pages' I/O without LMDB {fmt_us(replay)}"
    add("durable commit (insert/single_fact) ≤ 1.5× fsync floor", n, r,
        f"{fmt_us(commit)} vs {fmt_us(floor)} ({fmt_ratio(r)}×{baseline})", r is not None and r <= 1.5)
    # Storage v2's target (the log commits with SQLite's own commit): against the baseline's
    # durable commit, timed round by round beside ours.
    r = commit / plain_commit if commit and plain_commit else None
    add("durable commit (insert/single_fact) ≤ 1.25× plain SQLite's", n, r,
        f"{fmt_us(commit)} vs {fmt_us(plain_commit)} ({fmt_ratio(r)}×)", r is not None and r <= 1.25)
    n = largest(run, "bulk_load", "one_transaction_insert")
    plain = run.get("bulk_load", "one_transaction_insert", n, "sqlite") if n else None
    baseline = f" (SQLite {fmt_rate(plain['facts_per_s'])})" if plain else ""
    for wl in ("one_transaction_insert", "one_transaction_transact"):
        rec = run.get("bulk_load", wl, n, "exec") if n else None
        v = rec["facts_per_s"] if rec else None
        add(f"bulk load ({wl}) ≥ 1M facts/s", n, v, fmt_rate(v) + baseline, v is not None and v >= 1e6)
    n = largest(run, "bulk_load", "rebuild_index")
    rebuilt = run.get("bulk_load", "rebuild_index", n, "exec") if n else None
    loaded = run.get("bulk_load", "one_transaction_insert", n, "exec") if n else None
    if rebuilt and loaded:
        r = rebuilt["seconds"] / loaded["seconds"]
        add("rebuild the index of N facts from the log ≤ 2× loading them", n, r,
            f"{rebuilt['seconds']:.2f} s vs {loaded['seconds']:.2f} s ({fmt_ratio(r)}×)", r <= 2.0)
    n = largest(run, "bulk_load", "ntriples_import")
    ours = run.get("bulk_load", "ntriples_import", n, "exec") if n else None
    plain = run.get("bulk_load", "ntriples_import", n, "sqlite") if n else None
    if ours and plain:
        v, r = ours["facts_per_s"], ours["facts_per_s"] / plain["facts_per_s"]
        add("N-Triples import ≥ 1M facts/s and ≥ 1.5× SQLite's import", n, v,
            f"{fmt_rate(v)} ({fmt_ratio(r)}× SQLite's {fmt_rate(plain['facts_per_s'])})",
            v >= 1e6 and r >= 1.5)
    n = largest(run, "open", "existing_graph")
    v = run.median("open", "existing_graph", n, "exec") if n else None
    add("open existing graph ≤ 1 ms", n, v, fmt_us(v), v is not None and v <= 1000.0)
    n = largest(run, "memory", "load_plus_query")
    rec = run.get("memory", "load_plus_query", n, "exec") if n else None
    v = rec.get("peak_heap_bytes") if rec else None
    add("peak heap loading N facts ≤ 100 MB", n, v, "–" if v is None else f"{v / 1e6:.1f} MB",
        v is not None and v <= 100e6)
    n = largest(run, "memory", "ntriples_import")
    rec = run.get("memory", "ntriples_import", n, "exec") if n else None
    v = rec.get("peak_heap_bytes") if rec else None
    if rec:
        add("peak heap importing N triples ≤ 100 MB", n, v, "–" if v is None else f"{v / 1e6:.1f} MB",
            v is not None and v <= 100e6)
    n = largest(run, "setup", "populate")
    ours = run.get("setup", "populate", n, "exec") if n else None
    base = run.get("setup", "populate", n, "sqlite") if n else None
    if ours and base:
        add("bytes/fact below baseline", n, ours["bytes_per_fact"] / base["bytes_per_fact"],
            f"{ours['bytes_per_fact']:.1f} vs {base['bytes_per_fact']:.1f} B/fact",
            ours["bytes_per_fact"] < base["bytes_per_fact"])
        add("bytes/fact (database + index) ≤ 120", n, ours["bytes_per_fact"],
            f"{ours['bytes_per_fact']:.1f} B/fact", ours["bytes_per_fact"] <= 120.0)
    conc = {(r["workload"], r["impl"]): r for r in run.results if r["group"] == "concurrent"}

    def scaling(impl, wl):
        one, two = conc.get(("1_thread", impl)), conc.get((wl, impl))
        return two["reads_per_s"] / one["reads_per_s"] if one and two and one["reads_per_s"] else None

    def writer_cost(impl, wl):
        quiet, busy = conc.get((wl, impl)), conc.get((wl + "+writer", impl))
        return 1 - busy["reads_per_s"] / quiet["reads_per_s"] if quiet and busy and quiet["reads_per_s"] else None

    def with_reference(shown, reference):
        # The machine reference (readers that share nothing but the machine) measured alongside.
        return shown if reference is None else f"{shown} (machine reference {reference})"

    for impl, table in (("named", "main-schema"), ("temp", "temp-schema")):
        one = conc.get(("1_thread", impl))
        if impl == "temp" and not one:
            continue  # a run from before the temp-schema readers
        for wl, label in (("2_threads", "two reader threads ≥ 1.8× one"),
                          ("2_processes", "two reader processes ≥ 1.8× one")):
            r, ref = scaling(impl, wl), scaling("memory", wl)
            add(f"{label} ({table} named table)", one["size"] if one else None, r,
                with_reference(fmt_ratio(r), None if ref is None else fmt_ratio(ref)),
                r is not None and r >= 1.8)
        for wl in ("1_thread", "2_threads", "2_processes"):
            cost, ref = writer_cost(impl, wl), writer_cost("memory", wl)
            shown = "–" if cost is None else f"{cost * 100:.1f}%"
            if cost is not None and cost < 0:
                # Readers faster beside a writer than alone: the quiet window was disturbed (on
                # a shared machine), so this run does not measure the writer's cost.
                shown += ", readers faster with the writer: not a measurement"
            add(f"concurrent writer costs readers < 10% ({wl.replace('_', ' ')}, {table} named table)",
                one["size"] if one else None, cost,
                with_reference(shown, None if ref is None else f"{ref * 100:.1f}%"),
                cost is not None and 0 <= cost < 0.10)
    return rows


def verdict(met):
    return "n/a" if met is None else ("yes" if met else "**no**")


def baseline_check(run, w):
    """The baseline's figures next to an independent client's (bench/check_baseline.py)."""
    check = run.doc.get("baseline_check")
    loops = (f"a median of {check['results'][0]['repeats']} loops of {check['results'][0]['calls']:,} calls"
             if check and check.get("results") else "a median of repeated loops")
    w("How the baseline was checked: `bench/check_baseline.py` builds the same plain-SQLite database")
    w("again from another client (Debian's `/usr/bin/python3` and its `sqlite3` module: the same")
    w("schema, pragmas and data shapes, loaded by Python, not by this program) and times the same")
    w(f"SQL with random keys, as {loops}; it subtracts the client's own")
    w("cost per call (`SELECT ?1`). Both also time the lookup while a second connection holds a")
    w("read transaction: SQLite shares WAL read locks among a process's connections, so a statement")
    w("then skips the two `fcntl` calls and the `fstat` of its own read lock, which on this virtual")
    w("machine cost more than SQLite's lookup itself. The SQLite column of the tables below keeps")
    w("that per-statement lock, because each statement of our main-schema (\"named\") tables takes")
    w("the same lock on the database that hosts the graph (README, \"Reads and the database's read")
    w("lock\"); a temp-schema table takes none per call. Compare the")
    w("columns of one row, not the two clients' absolute figures alone: Python's module does more")
    w("per statement that reads a table than its `SELECT ?1` floor shows (about 2 µs here with the")
    w("lock held), and the C figures are timed alongside sqlite-datalog's paths.\n")
    if not check:
        w("(This run was rendered without the check's figures.)\n")
        return
    group_of = {"point_entity": "query", "join_3pattern": "query", "chain": "recursion"}
    w("| workload | size | workload_bench (C) | lock held (C) | Python: per call | client floor | "
      "Python − floor | lock held (Python − floor) |")
    w("|---|---|---|---|---|---|---|---|")
    for r in check["results"]:
        g = group_of.get(r["workload"], "query")
        c = run.median(g, r["workload"], r["size"], "sqlite")
        held = run.median(g, r["workload"], r["size"], "sqlite_lock_held")
        w(f"| {r['workload']} | {fmt_size(r['size'])} | {fmt_us(c)} | {fmt_us(held)} | "
          f"{fmt_us(r['median_us'])} | {fmt_us(r['client_floor_us'])} | {fmt_us(r['sqlite_us'])} | "
          f"{fmt_us(r['lock_held_us'])} |")
    w("")


def markdown(run, derived, rerun):
    m = run.meta
    out = []
    w = out.append
    w("# Benchmarks\n")
    w("sqlite-datalog against plain SQLite, on the workloads of Minigraf's benchmark suite, measured in")
    w("one run of `bench/workload_bench`. Ratios compare figures of the same run only; figures from")
    w("another machine (Minigraf's published ones) compare in order of magnitude at best.\n")
    w("| | |\n|---|---|")
    w(f"| date | {m['date']} |")
    w(f"| machine | {m['cpu']}, {m['cpus']} CPUs, {m['memory']} |")
    w(f"| system | {m['kernel']}, scratch files on {m['filesystem']} |")
    w(f"| SQLite | {m['sqlite_version']} |")
    if m.get("commit"):
        w(f"| commit | {m['commit']} |")
    if m.get("build"):
        w(f"| build | {m['build']} |")
    w(f"| run | {'`--quick` (smoke sizes)' if m['quick'] else 'full'}, {m['total_seconds']:.0f} s |")
    w(f"| row-count mismatches | {m['mismatch_count']} |\n")
    if m.get("note"):
        w(f"**Note:** {m['note']}\n")
    w("## How to rerun\n")
    w("```sh\n" + rerun + "\n```\n")
    w("`bench/run.sh` builds the extension and the program, runs it (about 3 minutes for the full run on this 2-core")
    w("machine; `--quick` in under a minute), writes `bench/results/<date>.json` and renders this page and")
    w("`docs/plots/`. The full run measures the release build, the one the Debian package holds:")
    w("`scripts/build-release.sh`, a Release build laid out by a profile of `scripts/pgo/training.sql` (a")
    w("workload of its own, not this benchmark's; about 5 minutes more). `--quick` measures the build in `build/`.")
    w("Run it on a quiet machine: other load shows up in every figure.\n")
    w("## What is measured\n")
    w("Each workload runs on three paths, all through SQL in the same process:\n")
    w("- **named**: `CREATE VIRTUAL TABLE qN USING datalog_query(g, '(query ...)')`, then")
    w("  `SELECT * FROM qN` (slots as arguments: `qN(?1)`), prepared once and stepped to the end.")
    w("- **ad hoc**: `SELECT * FROM datalog_q('g', ?1)`, prepared once, the Datalog text bound on")
    w("  every call, so each call parses and plans the query.")
    w("- **SQLite**: the equivalent SQL on a plain table, prepared once (recursive CTE for rules,")
    w("  `NOT EXISTS` for `not`, `UNION` for `or`, `GROUP BY` for aggregates, window functions).\n")
    w("Point lookups (point_entity, join_3pattern, as_of_counter, valid_at, entity_point,")
    w("value_lookup) take a random key on every call, the same fixed sequence of 4,096 keys on every")
    w("path: a slot (`[$e :val ?v]`, bound as the ident `':e123'`) on ours, `?1` (the integer 123) on")
    w("the baseline; one hot key would time one cached path through each B-tree. Every call reads")
    w("every column of every row it returns.\n")
    w("The baseline is what a competent SQLite user would build: `facts(e INTEGER, a INTEGER, v ANY,")
    w("tx INTEGER, valid_from INTEGER, valid_to INTEGER)`, `WITHOUT ROWID`, `STRICT`, primary key")
    w("`(e, a, v)` and an index on `(a, v, e)`, in WAL mode with `synchronous=FULL` (every commit")
    w("fsynced). Entities are integers (`:e7` → 7), attributes small integer ids")
    w("(named in an `attribute` table), values in their natural SQLite type (references as the entity's")
    w("integer, keyword values as text). It keeps the current state with its transaction and valid")
    w("time, not the history: that is the price sqlite-datalog pays for history. The baseline is")
    w("`ANALYZE`d after loading (without statistics SQLite picks poor join orders); its")
    w("`EXPLAIN QUERY PLAN` for every workload is in the run's JSON (`plan`). Its connection reads")
    w("through a 1 GiB `mmap_size`, as LMDB reads (with SQLite's default 2 MB page cache, a random")
    w("lookup in a larger database costs a `pread` per page missed). The database that hosts")
    w("sqlite-datalog's tables is set up the same way (WAL, `synchronous=FULL`), as an application")
    w("would; the graph's log lives in that database, committed (and synced) with it, and its index in")
    w("an LMDB file beside it, committed after SQLite's commit without a sync of its own")
    w("(docs/STORAGE.md); bytes per fact count both.\n")
    w("Data: the fixtures of WORKLOADS.md, loaded into both stores from one generated list, through")
    w("`datalog_exec('g', '(transact [...])')` in the fixture's batches (grouped 10,000 facts per SQL")
    w("transaction, so set-up is not a string of fsyncs). Every call is repeated after warm-up until")
    w("0.3 s and 5 calls, or 200 calls (durable writes: 0.5 s and 5 calls, or 100; `--quick` far")
    w("fewer); the tables give the median and the min–max per call. A row count differing between")
    w("the paths is reported as a mismatch below. The size of a recursion workload is the chain")
    w("depth or the edge count.\n")
    baseline_check(run, w)
    w("## Targets\n")
    w("| target | size | measured | met |\n|---|---|---|---|")
    for t in derived["targets"]:
        size = t["size"] if isinstance(t["size"], str) else (fmt_size(t["size"]) if t["size"] else "–")
        w(f"| {t['target']} | {size} | {t['shown']} | {verdict(t['met'])} |")
    w("")
    mism = run.doc.get("mismatches", [])
    errors = [r for r in run.results if "error" in r]
    if mism or errors:
        w("## Mismatches and errors\n")
        for x in mism:
            counts = ", ".join(f"{k[:-5]} {v}" for k, v in x.items() if k.endswith("_rows"))
            w(f"- row counts differ: {x['group']}/{x['workload']} at {fmt_size(x['size'])}: {counts}")
        for r in errors:
            w(f"- error: {r['group']}/{r['workload']} at {fmt_size(r['size'])} ({r['impl']}): {r['error']}")
        w("")
    analysis = pathlib.Path(__file__).with_name("ANALYSIS.md")
    if analysis.exists():
        w(analysis.read_text().rstrip() + "\n")
    w("## Read workloads\n")
    w("Median per call (min–max); ratio = sqlite-datalog / plain SQLite; growth = log-log slope of the")
    w("named path's median from the previous size. named: a named query table in the host database's")
    w("main schema (the targets use it); temp: the same table in the connection's temp schema, where")
    w("a statement takes no read lock on the host database file (see Concurrent readers); ad hoc:")
    w("`datalog_q` with the query text bound. *Minigraf: its published median for the same")
    w("workload on an Intel i7-1065G7 (another machine: orders of magnitude only).\n")
    growth = {(g["group"], g["workload"], g["impl"]): g for g in derived["growth"]}
    read_groups = []
    for r in run.results:
        if r["impl"] == "named" and "median_us" in r and r["group"] not in read_groups:
            read_groups.append(r["group"])
    notes = {}
    for group in read_groups:
        w(f"### {group}\n")
        w("| workload | size | rows | named | temp | ad hoc | SQLite | named ratio | temp ratio | ad hoc ratio | growth | Minigraf* |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for g, wl in run.timed_workloads({group}):
            steps = {s["to"]: s["exponent"] for s in growth.get((g, wl, "named"), {}).get("steps", [])}
            for n in run.sizes(g, wl):
                cells = []
                for impl in ("named", "temp", "adhoc", "sqlite"):
                    rec = run.get(g, wl, n, impl)
                    if rec is None or "median_us" not in rec:
                        cells.append("error" if rec else "–")
                    else:
                        cells.append(f"{fmt_us(rec['median_us'])} ({fmt_us(rec['min_us'])}–{fmt_us(rec['max_us'])})"
                                     if impl == "named" else fmt_us(rec["median_us"]))
                        if rec.get("note"):
                            notes[f"{g}/{wl}"] = rec["note"]
                rows = next((run.get(g, wl, n, i)["rows"] for i in ("sqlite", "named", "adhoc")
                             if run.get(g, wl, n, i) and "rows" in run.get(g, wl, n, i)), "–")
                w(f"| {wl} | {fmt_size(n)} | {rows} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} | "
                  f"{fmt_ratio(ratio_of(run, g, wl, n, 'named'))} | {fmt_ratio(ratio_of(run, g, wl, n, 'temp'))} | "
                  f"{fmt_ratio(ratio_of(run, g, wl, n, 'adhoc'))} | "
                  f"{fmt_ratio(steps.get(n))} | {fmt_us(MINIGRAF_US.get((g, wl, n)))} |")
        w("")
    if notes:
        w("Notes: " + "; ".join(f"`{k}`: {v}" for k, v in notes.items()) + ".\n")
    w("## Durable writes\n")
    w("Each call is one committed transaction on both sides. The baseline's retraction closes the")
    w("row's valid time (`UPDATE ... SET valid_to`), its nearest equivalent.\n")
    w("| operation | size | sqlite-datalog | SQLite | sqlite-datalog facts/s | SQLite facts/s | ratio (facts/s) |")
    w("|---|---|---|---|---|---|---|")
    for g, wl in run.timed_workloads({"insert", "retract"}):
        for n in run.sizes(g, wl):
            o, b = run.get(g, wl, n, "exec"), run.get(g, wl, n, "sqlite")
            if o and b:
                w(f"| {g}/{wl} | {fmt_size(n)} | {fmt_us(o['median_us'])} | {fmt_us(b['median_us'])} | "
                  f"{fmt_rate(o['facts_per_s'])} | {fmt_rate(b['facts_per_s'])} | "
                  f"{o['facts_per_s'] / b['facts_per_s']:.2f} |")
    for rec in run.results:
        if rec["group"] == "fsync" and not rec["workload"].startswith("commit_io"):
            w(f"| {rec['workload']} (the floor) | – | {fmt_us(rec['median_us'])} | | | | |")
    w("")
    replays = [r for r in run.results if r["group"] == "fsync" and r["workload"].startswith("commit_io")]
    if replays:
        w("The I/O of those commits without LMDB: per size, the 4 KiB pages one call of ours wrote")
        w("(`wchar` of /proc/self/io over its calls), written at scattered offsets of a 16 MiB file in")
        w("ascending order, then `fdatasync`, then a 120-byte write through an `O_DSYNC` descriptor: an")
        w("LMDB commit's protocol with no B-tree work (what a commit of the first storage format")
        w("paid on top of SQLite's; the index no longer syncs its commits).\n")
        w("| commit | size | pages per call | sqlite-datalog | the same I/O without LMDB | ratio |")
        w("|---|---|---|---|---|---|")
        for rec in replays:
            wl = rec["workload"].removeprefix("commit_io_")
            ours = run.get("insert", wl, rec["size"], "exec")
            if ours:
                w(f"| insert/{wl} | {fmt_size(rec['size'])} | {ours.get('pages_per_call', 0):.1f} | "
                  f"{fmt_us(ours['median_us'])} | {fmt_us(rec['median_us'])} | "
                  f"{ours['median_us'] / rec['median_us']:.2f} |")
        w("")
    w("## Open, size on disk, bulk load, memory\n")
    w("Open: a new connection on an existing graph, loading the extension and reading one fact,")
    w("against opening the baseline and reading one row.\n")
    w("| size | sqlite-datalog open | SQLite open | Minigraf open* | sqlite-datalog B/fact | SQLite B/fact |")
    w("|---|---|---|---|---|---|")
    for n in run.sizes("setup", "populate"):
        so, sb = run.get("setup", "populate", n, "exec"), run.get("setup", "populate", n, "sqlite")
        if not (so and sb):
            continue
        w(f"| {fmt_size(n)} | {fmt_us(run.median('open', 'existing_graph', n, 'exec'))} | "
          f"{fmt_us(run.median('open', 'existing_graph', n, 'sqlite'))} | "
          f"{fmt_us(MINIGRAF_US.get(('open', 'existing_graph', n)))} | {so['bytes_per_fact']:.1f} | {sb['bytes_per_fact']:.1f} |")
    w("")
    w("Bulk load: `[:e{i} :val i]` for i < n in one transaction (`INSERT INTO g`, or")
    w("`datalog_exec` transacts of 1,000 facts inside one `BEGIN ... COMMIT`; baseline `INSERT`).")
    w("`ntriples_import`: a generated N-Triples file of people (per person `rdf:type`, `foaf:name`,")
    w("`foaf:age` as an `xsd:integer` literal, two `foaf:knows`; bench/rdf_import.h), read by one")
    w("`datalog_import` call, against a plain-SQLite importer that reads the same file line by line,")
    w("splits each triple with a parser that knows only this file's forms, interns IRIs in a hash")
    w("map and inserts into the baseline's facts table in one transaction. Both include the parse.\n")
    w("| size | path | seconds | facts/s | B/fact |\n|---|---|---|---|---|")
    for r in run.results:
        if r["group"] == "bulk_load":
            who = "SQLite" if r["impl"] == "sqlite" else "sqlite-datalog"
            w(f"| {fmt_size(r['size'])} | {who} {r['workload']} | {r['seconds']:.2f} | "
              f"{fmt_rate(r['facts_per_s'])} | {r['bytes_per_fact']:.1f} |")
    w("")
    w("Memory: a fresh process loads N facts in transactions of 1,000, then runs the point query;")
    w("peak heap counts every malloc'd byte of the process (SQLite's page cache included; LMDB's")
    w("memory map is not heap, nor are the query engine's buffers of 1 MB and more, which")
    w("it maps directly; the point query measured here builds none), peak RSS is `ru_maxrss` (it")
    w("includes mapped file pages touched and every mapped buffer). The N-Triples row imports the")
    w("bulk load's file of N triples with one `datalog_import` call instead (written before counting")
    w("starts), then reads one fact.\n")
    w("| size | store | peak heap | peak RSS | seconds |\n|---|---|---|---|---|")
    for r in run.results:
        if r["group"] == "memory" and "peak_rss_bytes" in r:
            heap = f"{r['peak_heap_bytes'] / 1e6:.1f} MB" if "peak_heap_bytes" in r else "–"
            who = "SQLite" if r["impl"] == "sqlite" else "sqlite-datalog"
            if r["workload"] == "ntriples_import":
                who += ", N-Triples import"
            w(f"| {fmt_size(r['size'])} | {who} | {heap} | {r['peak_rss_bytes'] / 1e6:.1f} MB | {r['seconds']:.2f} |")
    w("")
    w("## Concurrent readers\n")
    w("Readers loop on the point query, each on its own connection; the writer commits single facts")
    w("durably meanwhile. Readers connect and run the query once before the timed window opens. Each")
    w("case runs alone and with the writer in turn, in five short windows, and the table gives the")
    w("medians. Ours read through a named query table, in the host database's main schema or in the")
    w("connection's temp schema. A statement on a main-schema table takes SQLite's read lock on the")
    w("host database file (two `fcntl` and an `fstat` per statement, strace shows); one on a")
    w("temp-schema table takes none: it keeps the log's position while the index's committed state")
    w("stays the same, and reads it (taking that lock) only after a commit (docs/STORAGE.md,")
    w("\"Reading\"). A reader that finds the index a commit behind its log waits for it, without the")
    w("writer's gate. The process")
    w("sets `SQLITE_CONFIG_MEMSTATUS` off, as a multi-threaded SQLite application would: with it on,")
    w("every allocation of every connection takes one process-wide mutex.\n")
    w("The **machine reference** is the baseline's table and point query in a private in-memory")
    w("database per reader: no file, no lock, nothing shared between readers. It runs in the same")
    w("windows, with sqlite-datalog's writer beside it. What it loses to a second reader or to the")
    w("writer is what this VM takes, whatever the store; the targets show it next to ours. Plain")
    w("SQLite's file-backed readers run faster *with* a writer thread than alone: the writer's")
    w("connection in the same process keeps the file locks that each reader would otherwise take")
    w("and drop with `fcntl` on every statement.\n")
    w("| store | shape | reads/s | reads/s with a writer | writer commits/s |\n|---|---|---|---|---|")
    conc = {(r["workload"], r["impl"]): r for r in run.results if r["group"] == "concurrent"}
    for impl, who in (("named", "sqlite-datalog, main schema"), ("temp", "sqlite-datalog, temp schema"),
                      ("sqlite", "SQLite"), ("memory", "machine reference")):
        for shape in ("1_thread", "2_threads", "2_processes"):
            q, b = conc.get((shape, impl)), conc.get((shape + "+writer", impl))
            if q and b:
                w(f"| {who} (n={fmt_size(q['size'])}) | {shape.replace('_', ' ')} | {q['reads_per_s']:.0f} | "
                  f"{b['reads_per_s']:.0f} | {b['writes_per_s']:.0f} |")
    w("")
    w("## Plots\n")
    w("Median latency against size, log-log; solid lines sqlite-datalog (named query tables, or")
    w("`datalog_exec` for writes), dashed plain SQLite.\n")
    for fam in FAMILIES:
        if os.path.exists(os.path.join(derived["_plots_dir"], f"{fam}.png")):
            w(f"![{fam}]({derived['_plots_rel']}/{fam}.png)\n")
    w("## Not reproduced\n")
    w("- `open/wal_replay` and `checkpoint`: LMDB has no write-ahead log to replay or checkpoint; a")
    w("  commit is in the file when it returns.")
    w("- `simd_*`: they time Rust vector code without a database.")
    w("- `concurrent/*` at 4–16 threads: this machine has few cores; the run measures 1 and 2 reader")
    w("  threads and 2 reader processes.")
    w("- `udf/*`: sqlite-datalog has no Datalog UDF API; the built-in `sum` and `>` stand in.")
    return "\n".join(out) + "\n"


def plot(run, plots_dir):
    os.makedirs(plots_dir, exist_ok=True)
    made = []
    for fam, groups in FAMILIES.items():
        series = []  # (title, dash type, colour, points)
        for colour, (g, wl) in enumerate(run.timed_workloads(set(groups)), start=1):
            for impl, dash in (("named", 1), ("exec", 1), ("sqlite", 2)):
                pts = run.series(g, wl, impl)
                if len(pts) >= 2:
                    who = "SQLite" if impl == "sqlite" else "datalog"
                    name = wl if len(groups) == 1 else f"{g}/{wl}"
                    series.append((f"{name} ({who})", dash, colour, pts))
        if not series:
            continue
        script = [
            "set terminal pngcairo size 1000,650 font ',10'",
            f"set output '{os.path.join(plots_dir, fam + '.png')}'",
            f"set title '{fam}: median latency against size (log-log)'",
            "set logscale xy", "set xlabel 'size (facts, depth or edges)'", "set ylabel 'median µs per call'",
            "set key outside right top", "set grid", "set termoption noenhanced",
            "set format x '%.0s%c'", "set format y '%g'",
        ]
        for i, (_, _, _, pts) in enumerate(series):
            script.append(f"$d{i} << EOD")
            script += [f"{n} {t}" for n, t in pts]
            script.append("EOD")
        parts = []
        for i, (title, dash, colour, _) in enumerate(series):
            parts.append(f"$d{i} using 1:2 with linespoints dashtype {dash} linecolor {colour} "
                         f"pointtype {colour} title '{title}'")
        script.append("plot " + ", \\\n  ".join(parts))
        res = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True,
                             capture_output=True)
        if res.returncode != 0:
            sys.exit(f"gnuplot failed for {fam}: {res.stderr}")
        made.append(fam)
    return made


def check_complete(doc):
    results = doc.get("results", [])
    if not results:
        sys.exit("render.py: the run has no results")
    groups = {r["group"] for r in results}
    if "meta" not in doc:
        sys.exit("render.py: the run has no meta section")
    return groups


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--json", required=True)
    ap.add_argument("--markdown", required=True)
    ap.add_argument("--plots", required=True)
    ap.add_argument("--rerun", default="bench/run.sh")
    ap.add_argument("--commit", default="")
    ap.add_argument("--build", default="", help="which build of the extension was measured")
    ap.add_argument("--note", default="", help="a remark on the run, printed under the table")
    ap.add_argument("--require", default="", help="comma-separated groups that must be present")
    ap.add_argument("--baseline-check", default="",
                    help="bench/check_baseline.py's JSON, quoted beside the baseline's figures")
    args = ap.parse_args()
    with open(args.run) as f:
        doc = json.load(f)
    if args.baseline_check:
        with open(args.baseline_check) as f:
            doc["baseline_check"] = json.load(f)
    groups = check_complete(doc)
    missing = [g for g in args.require.split(",") if g and g not in groups]
    if missing:
        sys.exit(f"render.py: the run lacks the groups {', '.join(missing)}")
    if args.commit:
        doc["meta"]["commit"] = args.commit
    if args.build:
        doc["meta"]["build"] = args.build
    if args.note:
        doc["meta"]["note"] = args.note
    run = Run(doc)
    ratios, growth = derive(run)
    derived = {"ratios": ratios, "growth": growth, "targets": targets(run)}
    doc["derived"] = derived
    with open(args.json, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    plot(run, args.plots)
    derived["_plots_dir"] = args.plots
    derived["_plots_rel"] = os.path.relpath(args.plots, os.path.dirname(os.path.abspath(args.markdown)))
    with open(args.markdown, "w") as f:
        f.write(markdown(run, derived, args.rerun))
    met = sum(1 for t in derived["targets"] if t["met"])
    print(f"render.py: {len(run.results)} results, {len(doc.get('mismatches', []))} mismatches, "
          f"targets met {met}/{len(derived['targets'])} -> {args.markdown}")


if __name__ == "__main__":
    main()
