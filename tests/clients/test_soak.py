"""Soak (issue 20's standing suite): processes transfer money between accounts kept both as graph
facts and in an ordinary table, while other processes read; in every snapshot, through SQL on
the graph, through Datalog and through the ordinary table, the total is the same, and each
account agrees across the two stores.

SOAK_SECONDS sets how long it runs (default 8; the long run in the closing note used 300)."""
import json
import os
import subprocess
import sys
import textwrap
import time

from conftest import EXT, connect, rows

ACCOUNTS = 10
START = 100
SECONDS = float(os.environ.get("SOAK_SECONDS", "8"))

COMMON = """
import json, random, sqlite3, sys, time
extension, database, seconds, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
conn = sqlite3.connect(database, isolation_level=None, timeout=10)
conn.enable_load_extension(True)
conn.load_extension(extension)
rng = random.Random(seed)
deadline = time.monotonic() + seconds
def busy(e):
    return "locked" in str(e) or "busy" in str(e)
"""

WRITER = COMMON + """
done = retries = 0
while time.monotonic() < deadline:
    a, b = rng.sample(range(1, %(accounts)d + 1), 2)
    amount = rng.randrange(1, 20)
    try:
        conn.execute("BEGIN")
        (va,), = conn.execute("SELECT v FROM g WHERE e = ? AND a = ':balance'", (a,)).fetchall()
        (vb,), = conn.execute("SELECT v FROM g WHERE e = ? AND a = ':balance'", (b,)).fetchall()
        conn.execute("UPDATE g SET v = ? WHERE e = ? AND a = ':balance'", (va - amount, a))
        conn.execute("UPDATE g SET v = ? WHERE e = ? AND a = ':balance'", (vb + amount, b))
        conn.execute("UPDATE ledger SET balance = balance - ? WHERE account = ?", (amount, a))
        conn.execute("UPDATE ledger SET balance = balance + ? WHERE account = ?", (amount, b))
        conn.execute("COMMIT")
        done += 1
    except sqlite3.OperationalError as e:
        if not busy(e):
            raise
        conn.execute("ROLLBACK")
        retries += 1
print(json.dumps({"transfers": done, "retries": retries}))
""" % {"accounts": ACCOUNTS}

READER = COMMON + """
checks = 0
bad = []
query = "(query [:find (sum ?b) :with ?a :where [?a :balance ?b]])"
while time.monotonic() < deadline:
    try:
        conn.execute("BEGIN")
        (graph_sql,), = conn.execute("SELECT sum(v) FROM g WHERE a = ':balance'").fetchall()
        (graph_datalog,), = conn.execute("SELECT c1 FROM datalog_q('g', ?)", (query,)).fetchall()
        (table,), = conn.execute("SELECT sum(balance) FROM ledger").fetchall()
        per_account = conn.execute(
            "SELECT l.account FROM ledger l JOIN g ON g.e = l.account AND g.a = ':balance' "
            "WHERE g.v != l.balance").fetchall()
        (facts,), = conn.execute("SELECT count(*) FROM g WHERE a = ':balance'").fetchall()
        conn.execute("COMMIT")
    except sqlite3.OperationalError as e:
        if not busy(e):
            raise
        conn.execute("ROLLBACK")
        continue
    checks += 1
    if (graph_sql, graph_datalog, table, facts) != (%(total)d, %(total)d, %(total)d, %(accounts)d) or per_account:
        bad.append([graph_sql, graph_datalog, table, facts, per_account])
print(json.dumps({"checks": checks, "bad": bad[:5], "violations": len(bad)}))
""" % {"accounts": ACCOUNTS, "total": ACCOUNTS * START}


def test_transfers_keep_every_snapshot_consistent_across_sql_datalog_and_tables(tmp_path):
    database = tmp_path / "app.db"
    conn = connect(database)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE VIRTUAL TABLE g USING datalog")
    conn.execute("CREATE TABLE ledger(account INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
    conn.execute("BEGIN")
    for account in range(1, ACCOUNTS + 1):
        conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':balance', ?)", (account, START))
        conn.execute("INSERT INTO ledger VALUES (?, ?)", (account, START))
    conn.execute("COMMIT")
    conn.close()
    writer, reader = tmp_path / "writer.py", tmp_path / "reader.py"
    writer.write_text(WRITER)
    reader.write_text(READER)
    procs = [subprocess.Popen([sys.executable, str(script), EXT, str(database), str(SECONDS), str(seed)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for seed, script in enumerate([writer, writer, reader, reader])]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=SECONDS + 120)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    writes, reads = results[:2], results[2:]
    assert all(w["transfers"] > 0 for w in writes), results
    assert all(r["checks"] > 0 for r in reads), results
    assert [r["violations"] for r in reads] == [0, 0], results
    conn = connect(database)
    assert rows(conn, "SELECT sum(v), count(*) FROM g WHERE a = ':balance'") == [(ACCOUNTS * START, ACCOUNTS)]
    assert rows(conn, "SELECT count(*) FROM ledger l JOIN g ON g.e = l.account AND "
                      "g.a = ':balance' WHERE g.v = l.balance") == [(ACCOUNTS,)]
    # every committed transfer is one graph transaction: 1 (the set-up) + the transfers
    assert rows(conn, "SELECT max(tx) FROM g_log") == [(1 + sum(w["transfers"] for w in writes),)]
    print(json.dumps(results))
