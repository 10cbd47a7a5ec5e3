#!/usr/bin/python3
"""An independent check of workload_bench's plain-SQLite figures.

    bench/check_baseline.py [--sizes 10000,1000000] [--calls 20000] [--repeats 5]
                            [--dir DIR] [--out FILE.json]

Builds the baseline database the way bench/stores.cpp describes it (same schema, same pragmas,
same data shapes, loaded here by Python's own sqlite3 module, not by the C++ harness) and times
the same SQL as bench/query_workloads.cpp from another client: Debian's /usr/bin/python3 and
its sqlite3 module, statements cached by the module, keys bound per call, every column read
(fetchall). Point and join lookups draw a random entity per call, as workload_bench does.

Each figure is the median over `repeats` loops of `calls` calls of the per-call mean. The
client's own cost is measured the same way on `SELECT ?1` (no table, no read transaction): what
is left after subtracting it is SQLite's work and its system calls. The loop runs once more while
a second connection holds a read transaction, which spares each statement the system calls of
its WAL read lock (SQLite shares those locks among a process's connections): the difference is
what the lock costs. bench/run.sh runs this after
workload_bench and render.py prints both side by side ("The baseline, checked").

The script runs itself with glibc's heap trim and mmap thresholds raised (GLIBC_TUNABLES): a
recursive CTE's UNION builds a temporary B-tree whose page cache Python's small heap would
otherwise hand back to the kernel and fault in again on every call (two brk() calls and fresh
pages per call, 400 against 150 µs for chain depth 100 here), a cost of the client process that
workload_bench's larger heap does not pay.

Standard library only.
"""
import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import time

# The baseline schema, as bench/stores.cpp (create_plain_schema) builds it.
SCHEMA = """
CREATE TABLE attribute(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);
CREATE TABLE facts(e INTEGER NOT NULL, a INTEGER NOT NULL, v ANY NOT NULL,
  tx INTEGER NOT NULL, valid_from INTEGER NOT NULL, valid_to INTEGER,
  PRIMARY KEY (e, a, v)) WITHOUT ROWID, STRICT;
CREATE INDEX facts_ave ON facts(a, v, e);
"""
# The per-connection settings bench/stores.cpp (open_plain) gives the baseline's connections.
READ_PRAGMAS = ("PRAGMA mmap_size=1073741824",)
VAL, NEXT = 1, 2

# The SQL of bench/query_workloads.cpp, word for word.
POINT_SQL = "SELECT v FROM facts WHERE e = ?1 AND a = 1"
JOIN_SQL = ("SELECT DISTINCT f3.v FROM facts f1 JOIN facts f2 ON f2.e = f1.v AND f2.a = 2"
            " JOIN facts f3 ON f3.e = f2.v AND f3.a = 1 WHERE f1.e = ?1 AND f1.a = 2")
REACH_SQL = ("WITH RECURSIVE reach(n) AS (SELECT v FROM facts WHERE e = 0 AND a = 2"
             " UNION SELECT f.v FROM facts f JOIN reach r ON f.e = r.n WHERE f.a = 2)"
             " SELECT n FROM reach")
FLOOR_SQL = "SELECT ?1"


def populate(n):  # [:e{i} :val i]
    return ((i, VAL, i) for i in range(n))


def populate_for_join(n):  # [:e{i} :val i] and [:e{i} :next :e{i+1}]
    for i in range(n):
        yield (i, VAL, i)
        if i + 1 < n:
            yield (i, NEXT, i + 1)


def chain(depth):  # [:n{i} :next :n{i+1}]
    return ((i, NEXT, i + 1) for i in range(depth))


def build(path, facts):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.executescript(SCHEMA)
    db.executemany("INSERT INTO attribute(id, name) VALUES (?, ?)", [(VAL, ":val"), (NEXT, ":next")])
    valid_from = int(time.time() * 1000)
    db.execute("BEGIN")
    db.executemany("INSERT OR REPLACE INTO facts(e, a, v, tx, valid_from) VALUES (?, ?, ?, ?, ?)",
                   ((e, a, v, i // 100 + 1, valid_from) for i, (e, a, v) in enumerate(facts)))
    db.execute("COMMIT")
    db.execute("ANALYZE")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def per_call_us(db, sql, keys, calls, repeats):
    """Median over `repeats` loops of the mean time of one call, in µs; and the rows of a call."""
    args = [(k,) for k in keys] if keys else [()] * calls
    for a in args[: min(len(args), 1000)]:  # warm-up: statement cache, page cache
        db.execute(sql, a).fetchall()
    means = []
    for _ in range(repeats):
        start = time.perf_counter()
        for a in args:
            db.execute(sql, a).fetchall()
        means.append((time.perf_counter() - start) / len(args) * 1e6)
    return statistics.median(means), len(db.execute(sql, args[0]).fetchall())


def measure(path, workload, size, sql, keys, calls, repeats):
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in READ_PRAGMAS:
        db.execute(pragma)
    us, rows = per_call_us(db, sql, keys, calls, repeats)
    floor, _ = per_call_us(db, FLOOR_SQL, keys or [0], calls, repeats)
    # The same loop while another connection of this process holds a read transaction: SQLite
    # shares WAL read locks among a process's connections, so each statement then skips the two
    # fcntl() calls and the fstat() of its own read lock. What those system calls cost is the
    # difference (an application that keeps a read transaction open elsewhere gets this figure).
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN")
    holder.execute("SELECT count(*) FROM attribute").fetchall()
    held, _ = per_call_us(db, sql, keys, calls, repeats)
    holder.close()
    db.close()
    return {"workload": workload, "size": size, "client": "python3 sqlite3 " + sqlite3.sqlite_version,
            "median_us": round(us, 3), "client_floor_us": round(floor, 3),
            "sqlite_us": round(us - floor, 3), "lock_held_us": round(held - floor, 3),
            "rows": rows, "calls": calls, "repeats": repeats}


HEAP_TUNABLES = "glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432"


def main():
    if os.environ.get("GLIBC_TUNABLES") != HEAP_TUNABLES:
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, GLIBC_TUNABLES=HEAP_TUNABLES))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--sizes", default="10000,1000000")
    p.add_argument("--chains", default="100,1000")
    p.add_argument("--calls", type=int, default=20000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--dir", default="/tmp")
    p.add_argument("--out")
    p.add_argument("--seed", type=int, default=19)
    o = p.parse_args()
    rng = random.Random(o.seed)
    os.makedirs(o.dir, exist_ok=True)
    path = os.path.join(o.dir, f"check-baseline-{os.getpid()}.db")
    results = []

    def report(r):
        results.append(r)
        print(f"{r['workload']} n={r['size']}: {r['median_us']:.2f} us per call "
              f"(client floor {r['client_floor_us']:.2f} us, SQLite {r['sqlite_us']:.2f} us, "
              f"{r['lock_held_us']:.2f} us with a read lock held; {r['rows']} rows)", file=sys.stderr)

    try:
        for n in (int(s) for s in o.sizes.split(",") if s):
            build(path, populate(n))
            keys = [rng.randrange(n) for _ in range(o.calls)]
            report(measure(path, "point_entity", n, POINT_SQL, keys, o.calls, o.repeats))
            build(path, populate_for_join(n))
            keys = [rng.randrange(n - 2) for _ in range(o.calls)]  # e, e+1, e+2 all exist
            report(measure(path, "join_3pattern", n, JOIN_SQL, keys, o.calls, o.repeats))
        for depth in (int(s) for s in o.chains.split(",") if s):
            build(path, chain(depth))
            calls = max(200, o.calls // depth)
            report(measure(path, "chain", depth, REACH_SQL, None, calls, o.repeats))
    finally:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
    doc = {"format": "sqlite-datalog-baseline-check/1", "seed": o.seed, "results": results}
    text = json.dumps(doc, indent=1) + "\n"
    if o.out:
        with open(o.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
