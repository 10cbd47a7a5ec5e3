#!/usr/bin/env bash
# Replicates a database with a graph through Litestream while a writer commits, restores the
# replica elsewhere, and checks that the restored copy answers every query as the original does:
# current facts, the full history at every transaction, Datalog with rules, and a join of graph
# facts with an ordinary table. Litestream replicates the database file only; the graph's log is
# in it, and the restored copy rebuilds its index from the log on first use (docs/SCALING.md).
#
#   scripts/litestream_demo.sh [WORKDIR]     (needs npm; build/datalog.so must be built)
set -euo pipefail
cd "$(dirname "$0")/.."
ext="$PWD/build/datalog"
work=${1:-$(mktemp -d)}
mkdir -p "$work"
litestream="$PWD/build/litestream/node_modules/@flydotio/litestream-linux-x64/litestream"
if [ ! -x "$litestream" ]; then
  npm install --silent --prefix build/litestream @flydotio/litestream-linux-x64 >/dev/null
fi
echo "litestream $("$litestream" version)"

db="$work/app.db"
rm -rf "$work/app.db"* "$work/replica" "$work/restored"
sqlite3 "$db" >/dev/null <<SQL
.load $ext
PRAGMA journal_mode=WAL;
CREATE TABLE payments(person TEXT, amount INTEGER);
CREATE VIRTUAL TABLE g USING datalog;
SELECT datalog_exec('g', '(rule [(knows ?a ?b) [?a :knows ?b]] [(knows ?a ?b) [?a :knows ?c] (knows ?c ?b)])');
SQL

"$litestream" replicate "$db" "file://$work/replica" > "$work/litestream.log" 2>&1 &
replicating=$!
trap 'kill $replicating 2>/dev/null || true' EXIT

# The writer: 300 transactions while Litestream replicates, each an ordinary row and graph facts,
# with updates and retractions so there is history to compare.
/usr/bin/python3 - "$ext" "$db" <<'PY'
import sqlite3, sys
ext, db = sys.argv[1:]
conn = sqlite3.connect(db, isolation_level=None)
conn.enable_load_extension(True)
conn.load_extension(ext)
for i in range(300):
    p = f":p{i % 40}"
    conn.execute("BEGIN")
    conn.execute("INSERT INTO payments VALUES (?, ?)", (p, i))
    conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':balance', ?) ", (f":acct{i}", i * 10))
    conn.execute("UPDATE g SET v = ? WHERE e = ? AND a = ':name'", (f"name {i}", p))
    if not conn.execute("SELECT 1 FROM g WHERE e = ? AND a = ':name'", (p,)).fetchall():
        conn.execute("INSERT INTO g(e, a, v) VALUES (?, ':name', ?)", (p, f"name {i}"))
    conn.execute("INSERT INTO g(e, a, v, vtype) VALUES (?, ':knows', ?, 'ref')", (p, f":p{(i * 7) % 40}"))
    if i % 5 == 0:
        conn.execute("DELETE FROM g WHERE e = ? AND a = ':balance'", (f":acct{i - 5}",))
    conn.execute("COMMIT")
print("writer: 300 transactions committed while replicating")
PY
sleep 3  # Litestream ships the WAL every second
kill $replicating
wait $replicating 2>/dev/null || true
trap - EXIT

"$litestream" restore -o "$work/restored/app.db" "file://$work/replica"
ls "$work/restored"

# The same questions to both databases; the restored one has no index file yet.
answers() {
  sqlite3 "$1" <<SQL
.load $ext
SELECT 'facts', count(*) FROM g;
SELECT 'last tx', max(tx) FROM g WHERE as_of = 1000000 AND valid_at = 'any';
SELECT 'history', e, a, v, tx, tx_time FROM g WHERE valid_at = 'any' AND as_of = 150 ORDER BY e, a, tx, v;
SELECT 'now', e, a, v, tx FROM g ORDER BY e, a, v;
SELECT 'rule', count(*) FROM datalog_q('g', '(query [:find ?a ?b :where (knows ?a ?b)])');
SELECT 'as-of', * FROM datalog_q('g', '(query [:find ?n :as-of 20 :where [:p3 :name ?n]])');
SELECT 'join', p.person, sum(p.amount), n.v FROM payments p JOIN g n ON n.e = p.person
 WHERE n.a = ':name' GROUP BY p.person ORDER BY p.person;
SQL
}
answers "$db" > "$work/original.txt"
answers "$work/restored/app.db" > "$work/restored.txt"
ls "$work/restored"
if cmp -s "$work/original.txt" "$work/restored.txt"; then
  echo "restored copy: the same $(wc -l < "$work/original.txt") answer lines as the original"
  grep -E "^(facts|last tx|rule)" "$work/restored.txt"
else
  diff "$work/original.txt" "$work/restored.txt" | head -20
  echo "restored copy differs from the original" >&2
  exit 1
fi
