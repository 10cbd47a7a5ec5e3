"""A 1M-fact graph with history survives export and import unchanged (issue 19's round-trip target).

Builds a graph of 1M facts, then ten transactions of updates and deletions and a rule; exports the
whole history as EDN, imports it into a fresh table of another database, and compares the log rows
and the answers at several as_of counters, every valid time included. Prints the timings.

  /usr/bin/python3 bench/history_round_trip.py build/datalog.so /tmp/round-trip
(Debian's python3: the pyenv one cannot load extensions.) The folder is emptied first.
"""
import os
import shutil
import sqlite3
import sys
import time

EXT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "build/datalog.so"
d = sys.argv[2] if len(sys.argv) > 2 else "/tmp/round-trip"
shutil.rmtree(d, ignore_errors=True); os.makedirs(d)


def conn(path):
    c = sqlite3.connect(path, isolation_level=None)
    c.enable_load_extension(True); c.load_extension(EXT)
    c.execute("PRAGMA journal_mode=WAL")
    return c


a = conn(f"{d}/a.db")
a.execute("CREATE VIRTUAL TABLE g USING datalog")
t = time.monotonic()
a.execute("WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < 999999) "
          "INSERT INTO g(e,a,v) SELECT ':e'||i, ':val', i FROM c")
print(f"load 1M: {time.monotonic()-t:.1f} s")
for k in range(10):   # ten more transactions: updates and deletes, so there is history
    a.execute(f"UPDATE g SET v = v + 1000000 WHERE a = ':val' AND e IN (SELECT ':e'||i FROM "
              f"(WITH RECURSIVE c(i) AS (SELECT {k*1000} UNION ALL SELECT i+1 FROM c WHERE i < {k*1000+999}) SELECT i FROM c))")
    a.execute(f"DELETE FROM g WHERE a = ':val' AND e = ':e{500000+k}'")
a.execute("SELECT datalog_exec('g', '(rule [(big ?e) [?e :val ?v] [(> ?v 1000000)]])')")
last = a.execute("SELECT max(tx) FROM g_log").fetchone()[0]
t = time.monotonic()
n = a.execute("SELECT datalog_export('g', 'history.edn')").fetchone()[0]
print(f"export: {n} records, {os.path.getsize(d+'/history.edn')/1e6:.0f} MB, {time.monotonic()-t:.1f} s")
os.makedirs(f"{d}/b"); shutil.move(f"{d}/history.edn", f"{d}/b/history.edn")
b = conn(f"{d}/b/b.db")
b.execute("CREATE VIRTUAL TABLE g USING datalog")
t = time.monotonic()
m = b.execute("SELECT datalog_import('g', 'history.edn')").fetchone()[0]
print(f"import: {m} records, {time.monotonic()-t:.1f} s")
b.execute(f"ATTACH '{d}/a.db' AS a")
diff = b.execute("SELECT count(*) FROM (SELECT seq, tx, tx_time, body FROM a.g_log EXCEPT "
                 "SELECT seq, tx, tx_time, body FROM main.g_log)").fetchone()[0]
diff += b.execute("SELECT count(*) FROM (SELECT seq, tx, tx_time, body FROM main.g_log EXCEPT "
                  "SELECT seq, tx, tx_time, body FROM a.g_log)").fetchone()[0]
print(f"log rows: {b.execute('SELECT count(*) FROM g_log').fetchone()[0]} here, differing: {diff}")
cols = "e, a, v, vtype, tx, tx_time, valid_from, valid_to"
for as_of in (1, 5, last):
    q = f"SELECT {cols} FROM g WHERE as_of = {as_of} AND valid_at = 'any' ORDER BY 1, 2, 3"
    ra = a.execute(q).fetchall(); rb = b.execute(q).fetchall()
    print(f"as_of {as_of}: {len(ra)} rows, identical: {ra == rb}")
    diff += ra != rb
qa = a.execute("SELECT count(*) FROM datalog_q('g', '(query [:find ?e :where (big ?e)])')").fetchone()[0]
qb = b.execute("SELECT count(*) FROM datalog_q('g', '(query [:find ?e :where (big ?e)])')").fetchone()[0]
print(f"rule query: {qa} vs {qb}")
sys.exit(0 if diff == 0 and qa == qb else 1)
