-- scripts/pgo/training.sql: the workload a release build is trained on (scripts/build-release.sh).
--
-- An instrumented build of the extension counts which branches and calls this script runs; the
-- release build is then laid out by those counts (GCC's -fprofile-use): hot code together, cold
-- code (errors, rare cases) apart. So it should run what applications run most, in about those
-- proportions: bulk writes and imports, small transactions, point look-ups, scans, joins, rules,
-- negation, disjunction, aggregates and time travel, through named query tables, datalog_q and
-- the store table. Its data and queries are its own, not the benchmark's (bench/), so that the
-- benchmark measures a build that was not trained on what it times.
-- Run from an empty folder: sqlite3 train.db -cmd '.load EXT' < training.sql
PRAGMA journal_mode=WAL;
CREATE VIRTUAL TABLE g USING datalog;
CREATE TABLE n(i INTEGER PRIMARY KEY);
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 39999)
INSERT INTO n SELECT i FROM c;

-- Bulk writes through the store table: one transaction of people, ages, cities and friends.
BEGIN;
INSERT INTO g(e, a, v) SELECT ':user-' || i, ':user/name', 'User ' || i FROM n;
INSERT INTO g(e, a, v) SELECT ':user-' || i, ':user/age', 18 + i % 70 FROM n;
INSERT INTO g(e, a, v) SELECT ':user-' || i, ':user/city', 'City ' || (i % 97) FROM n;
INSERT INTO g(e, a, v, vtype) SELECT ':user-' || i, ':user/follows', ':user-' || ((i * 13 + 5) % 40000), 'ref' FROM n;
INSERT INTO g(e, a, v, vtype) SELECT ':user-' || i, ':user/manager', ':user-' || (i / 8), 'ref' FROM n WHERE i > 0;
COMMIT;

-- Small transactions: single facts and batches through datalog_exec, updates and retractions.
SELECT count(datalog_exec('g', '(transact [[:user-' || i || ' :user/score ' || (i * 7 % 1000) || ']])'))
  FROM n WHERE i < 400;
SELECT count(datalog_exec('g', '(transact [[:user-' || i || ' :user/age 30] [:user-' || (i + 1) ||
                          ' :user/age 31] [:user-' || (i + 2) || ' :user/flag true]])'))
  FROM n WHERE i < 300;
UPDATE g SET v = v + 1 WHERE a = ':user/score' AND e IN (SELECT ':user-' || i FROM n WHERE i < 200);
DELETE FROM g WHERE a = ':user/flag' AND e IN (SELECT ':user-' || i FROM n WHERE i < 100);
SELECT count(datalog_exec('g', '(retract [[:user-' || i || ' :user/score ' || (i * 7 % 1000 + 1) || ']])'))
  FROM n WHERE i < 50;
SELECT datalog_exec('g', '(rule [(chain ?a ?b) [?a :user/manager ?b]])');
SELECT datalog_exec('g', '(rule [(chain ?a ?c) [?a :user/manager ?b] (chain ?b ?c)])');
SELECT datalog_exec('g', '(rule [(adult ?u) [?u :user/age ?x] [(>= ?x 21)]])');

-- Named query tables, called once per key (the application's prepared look-ups).
CREATE VIRTUAL TABLE temp.name_of USING datalog_query(g, '(query [:find ?n :where [$u :user/name ?n]])');
CREATE VIRTUAL TABLE temp.followee_city USING datalog_query(g,
  '(query [:find ?c :where [$u :user/follows ?f] [?f :user/manager ?m] [?m :user/city ?c]])');
CREATE VIRTUAL TABLE temp.age_then USING datalog_query(g,
  '(query [:find ?x :as-of 3 :where [$u :user/age ?x]])');
CREATE VIRTUAL TABLE temp.age_valid USING datalog_query(g,
  '(query [:find ?x :valid-at "2090-06-01T00:00:00Z" :where [$u :user/age ?x]])');
SELECT count(*) FROM n, temp.name_of(':user-' || ((n.i * 7919) % 40000)) AS q;
SELECT count(*) FROM n, temp.name_of(':user-' || ((n.i * 104729) % 40000)) AS q;
SELECT count(*) FROM n, temp.followee_city(':user-' || ((n.i * 7919) % 40000)) AS q;
SELECT count(*) FROM n, temp.age_then(':user-' || ((n.i * 31) % 40000)) AS q WHERE n.i < 20000;
SELECT count(*) FROM n, temp.age_valid(':user-' || ((n.i * 37) % 40000)) AS q WHERE n.i < 20000;

-- Scans, filters, joins, rules, negation, disjunction, aggregates (ad hoc and named).
CREATE VIRTUAL TABLE temp.everyone USING datalog_query(g, '(query [:find ?u ?n :where [?u :user/name ?n]])');
SELECT count(*), max(length(n)) FROM temp.everyone;
SELECT count(*), max(length(n)) FROM temp.everyone;
SELECT count(*) FROM datalog_q('g', '(query [:find ?u :where [?u :user/age _]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?u :where [?u :user/age ?x] [(< ?x 40)]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?u :where [?u :user/age 44]])');
SELECT count(*) FROM datalog_q('g',
  '(query [:find ?u ?n :where [?u :user/age ?x] [?u :user/name ?n] [(> ?x 80)]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?n :where [?u :user/city "City 5"] [?u :user/name ?n]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?u :where [?u :user/name ?n] [(matches? ?n "User 1\\d+7")]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?b :where (chain :user-39999 ?b)])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?a ?b :where [?a :user/age 25] (chain ?a ?b)])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?u :where (adult ?u) (not [?u :user/score _])])');
SELECT count(*) FROM datalog_q('g',
  '(query [:find ?u :where [?u :user/age ?x] (not-join [?u] [?u :user/follows ?f] [?f :user/age 30])])');
SELECT count(*) FROM datalog_q('g',
  '(query [:find ?u :where [?u :user/name _] (or [?u :user/age 20] [?u :user/city "City 3"])])');
SELECT * FROM datalog_q('g', '(query [:find (count ?u) (sum ?x) :where [?u :user/age ?x]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?c (count ?u) :where [?u :user/city ?c]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?c (avg ?x) :with ?u :where [?u :user/city ?c] [?u :user/age ?x]])');
SELECT count(*) FROM datalog_q('g', '(query [:find (count-distinct ?x) :where [?u :user/age ?x]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?u (rank :over (:order-by ?x)) :where [?u :user/age ?x]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?u ?x :any-valid-time :where [?u :user/score ?x]])');
SELECT count(*) FROM datalog_q('g', '(query [:find ?u ?t :any-valid-time :where [?u :user/score _] [?u :db/tx-count ?t]])');

-- The store table read from SQL: point look-ups, ranges, reverse references, joins with tables.
SELECT count(*) FROM n JOIN g ON g.e = ':user-' || n.i AND g.a = ':user/age';
SELECT count(*) FROM g WHERE a = ':user/age' AND v BETWEEN 30 AND 40;
SELECT count(*) FROM g WHERE v = ':user-7' AND vtype = 'ref';
SELECT count(*) FROM g AS f JOIN g AS c ON c.e = f.v AND c.a = ':user/city' WHERE f.a = ':user/follows';
SELECT count(*) FROM g WHERE a = ':user/score' AND as_of = 2;

-- Import and export: N-Triples written by the shell, imported into a second graph, exported.
CREATE VIRTUAL TABLE g2 USING datalog;
.headers off
.mode list
.output people.nt
SELECT '<http://example.net/u/' || i || '> <http://example.net/v#name> "Member ' || i || '" .' || char(10) ||
       '<http://example.net/u/' || i || '> <http://example.net/v#level> "' || (i % 9) ||
       '"^^<http://www.w3.org/2001/XMLSchema#integer> .' || char(10) ||
       '<http://example.net/u/' || i || '> <http://example.net/v#knows> <http://example.net/u/' ||
       ((i * 17 + 3) % 40000) || '> .'
  FROM n;
.output stdout
SELECT datalog_import('g2', 'people.nt');
SELECT datalog_export('g2', 'people-out.nt');
SELECT datalog_export('g', 'users.jsonl');
