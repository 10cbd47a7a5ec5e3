-- sql/demo.sql: a tour of sqlite-datalog in the sqlite3 shell.
--
-- Run from the repository root on a fresh database (scripts/demo.sh does exactly this):
--   rm -f demo.db demo.graph demo.graph-lock && sqlite3 demo.db < sql/demo.sql
-- Its output is checked against sql/demo.expected (ctest demo_shell), so every query selects
-- only columns that do not depend on the wall clock: no tx_time, and no valid_from of facts
-- whose valid time was left to default (it defaults to the transaction time).

.load ./build/datalog
.mode table

.print
.print '== 1. A graph beside the database: demo.db -> demo.graph'
-- No argument: the graph is the file demo.graph next to demo.db (plus LMDB's demo.graph-lock).
CREATE VIRTUAL TABLE g USING datalog;

.print
.print '== 2. People: names and ages, one transaction (tx 1)'
-- A row is a fact: entity e (an ident keyword like :alice), attribute a (a keyword), value v.
-- Every write of one SQLite transaction shares one transaction counter.
BEGIN;
INSERT INTO g(e, a, v) VALUES
  (':alice', ':person/name', 'Alice'), (':alice', ':person/age', 34),
  (':bob',   ':person/name', 'Bob'),   (':bob',   ':person/age', 41),
  (':carol', ':person/name', 'Carol'), (':carol', ':person/age', 29),
  (':dave',  ':person/name', 'Dave'),  (':dave',  ':person/age', 52);
COMMIT;
SELECT e, a, v, vtype, tx FROM g WHERE a = ':person/name' ORDER BY e;

.print
.print "== 3. Friendships are references to other entities: vtype = 'ref' (tx 2)"
INSERT INTO g(e, a, v, vtype) VALUES
  (':alice', ':friend', ':bob',   'ref'),
  (':bob',   ':friend', ':carol', 'ref'),
  (':carol', ':friend', ':alice', 'ref'),
  (':dave',  ':friend', ':alice', 'ref');
SELECT e, v AS friend, vtype, tx FROM g WHERE a = ':friend' ORDER BY e;

.print
.print '== 4. Employment with valid time: when it was true in the world (tx 3)'
-- valid_from is inclusive, valid_to exclusive (NULL = still true). Alice worked at Acme from
-- 2019-01-01 through 2022-06-30, then at Globex from 2022-07-01.
INSERT INTO g(e, a, v, vtype, valid_from, valid_to) VALUES
  (':alice', ':works-at', ':acme',    'ref', '2019-01-01', '2022-07-01'),
  (':alice', ':works-at', ':globex',  'ref', '2022-07-01', NULL),
  (':bob',   ':works-at', ':acme',    'ref', '2020-03-01', NULL),
  (':carol', ':works-at', ':globex',  'ref', '2018-05-01', '2021-01-01'),
  (':carol', ':works-at', ':initech', 'ref', '2021-01-01', NULL);

.print
.print '-- Where does everyone work now? (the default view: valid now)'
SELECT e, v AS company, valid_from, valid_to FROM g WHERE a = ':works-at' ORDER BY e;

.print
.print '-- Where did they work on 2020-06-01? (valid_at)'
SELECT e, v AS company, valid_from, valid_to
  FROM g WHERE a = ':works-at' AND valid_at = '2020-06-01' ORDER BY e;

.print
.print "-- The whole employment history (valid_at = 'any': every valid-time window)"
SELECT e, v AS company, valid_from, valid_to
  FROM g WHERE a = ':works-at' AND valid_at = 'any' ORDER BY e, valid_from;

.print
.print '== 5. Graph facts join ordinary SQL tables'
-- The companies live in an ordinary table; g.v holds the company entity, shown as its ident.
CREATE TABLE companies(ident TEXT PRIMARY KEY, name TEXT, city TEXT);
INSERT INTO companies VALUES
  (':acme', 'Acme Corp', 'Springfield'),
  (':globex', 'Globex', 'Cypress Creek'),
  (':initech', 'Initech', 'Austin');
SELECT n.v AS person, c.name AS company, c.city
  FROM g AS w
  JOIN g AS n ON n.e = w.e AND n.a = ':person/name'
  JOIN companies AS c ON c.ident = w.v
 WHERE w.a = ':works-at'
 ORDER BY person;

.print
.print '-- Who worked at Acme at any time, with their age (a self-join on the entity)'
SELECT n.v AS person, age.v AS age, w.valid_from, w.valid_to
  FROM g AS w
  JOIN g AS n ON n.e = w.e AND n.a = ':person/name'
  JOIN g AS age ON age.e = w.e AND age.a = ':person/age'
 WHERE w.a = ':works-at' AND w.v = ':acme' AND w.vtype = 'ref' AND w.valid_at = 'any'
 ORDER BY person;

.print
.print '-- Friends of friends'
SELECT f1.e AS person, f1.v AS friend, f2.v AS friend_of_friend
  FROM g AS f1 JOIN g AS f2 ON f2.e = f1.v AND f2.a = ':friend'
 WHERE f1.a = ':friend'
 ORDER BY person;

.print
.print '-- Who points at :alice? (a reverse lookup through the VAET index)'
SELECT e, a FROM g WHERE v = ':alice' AND vtype = 'ref' ORDER BY e, a;

.print
.print '-- People older than 30 (a range over the AVET index)'
SELECT e, v AS age FROM g WHERE a = ':person/age' AND v > 30 ORDER BY v;

.print
.print '== 6. UPDATE is retract + assert: Bob turns 42 (tx 4)'
UPDATE g SET v = 42 WHERE e = ':bob' AND a = ':person/age';
SELECT e, v AS age, tx FROM g WHERE e = ':bob' AND a = ':person/age';

.print
.print '== 7. DELETE retracts, and history keeps it: Dave unfriends Alice (tx 5)'
DELETE FROM g WHERE e = ':dave' AND a = ':friend' AND v = ':alice';
.print '-- Friends now:'
SELECT e, v AS friend, tx FROM g WHERE a = ':friend' ORDER BY e;
.print '-- Friends as of tx 4, before the retraction (as_of: transaction time travel):'
SELECT e, v AS friend, tx FROM g WHERE a = ':friend' AND as_of = 4 ORDER BY e;

.print
.print "-- Bob's age as the graph knew it after each transaction"
SELECT 1 AS as_of, v AS age FROM g WHERE e = ':bob' AND a = ':person/age' AND as_of = 1
UNION ALL
SELECT 3, v FROM g WHERE e = ':bob' AND a = ':person/age' AND as_of = 3
UNION ALL
SELECT 4, v FROM g WHERE e = ':bob' AND a = ':person/age' AND as_of = 4;

.print
.print '-- Both clocks at once: what did we know at tx 2 about 2020-06-01? (employment came in tx 3)'
SELECT count(*) AS jobs_known FROM g
 WHERE a = ':works-at' AND as_of = 2 AND valid_at = '2020-06-01';

.print
.print '== 8. A rolled-back transaction leaves nothing and consumes no counter'
BEGIN;
INSERT INTO g(e, a, v) VALUES (':eve', ':person/name', 'Eve');
SELECT count(*) AS eve_inside_the_transaction FROM g WHERE e = ':eve';
ROLLBACK;
SELECT count(*) AS eve_after_rollback FROM g WHERE e = ':eve';
INSERT INTO g(e, a, v) VALUES (':eve', ':person/name', 'Eve');
SELECT e, v, tx FROM g WHERE e = ':eve';

.print
.print '== 9. Values keep their type: (v, vtype) round-trips every kind (tx 7)'
INSERT INTO g(e, a, v, vtype) VALUES
  (':sample', ':a/string',  ':bob',      NULL),
  (':sample', ':a/keyword', ':bob',      'keyword'),
  (':sample', ':a/ref',     ':bob',      'ref'),
  (':sample', ':a/integer', 42,          NULL),
  (':sample', ':a/float',   2.5,         NULL),
  (':sample', ':a/boolean', 'true',      'boolean'),
  (':sample', ':a/instant', '2020-06-01', 'instant'),
  (':sample', ':a/uuid',    '6BA7B810-9DAD-11D1-80B4-00C04FD430C8', 'uuid'),
  (':sample', ':a/bytes',   x'00ff',     NULL),
  (':sample', ':a/nil',     NULL,        NULL);
SELECT a, quote(v) AS v, vtype, typeof(v) AS sql_type FROM g WHERE e = ':sample' ORDER BY a;

.print
.print '== 10. Query plans: which index answers which constraint'
.print '-- entity -> EAVT'
EXPLAIN QUERY PLAN SELECT a, v FROM g WHERE e = ':alice';
.print '-- entity and attribute -> EAVT prefix'
EXPLAIN QUERY PLAN SELECT v FROM g WHERE e = ':alice' AND a = ':person/name';
.print '-- attribute and value -> AVET'
EXPLAIN QUERY PLAN SELECT e FROM g WHERE a = ':person/name' AND v = 'Bob';
.print '-- a reference value -> VAET'
EXPLAIN QUERY PLAN SELECT e, a FROM g WHERE v = ':alice' AND vtype = 'ref';
.print '-- no constraint on e, a or v -> a full scan'
EXPLAIN QUERY PLAN SELECT count(*) FROM g;
