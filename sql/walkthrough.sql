-- sql/walkthrough.sql: every feature of the Datalog dialect, used from the sqlite3 shell.
--
-- Run it from the repository root on a fresh database:
--   rm -f walkthrough.db walkthrough.graph walkthrough.graph-lock
--   sqlite3 walkthrough.db < sql/walkthrough.sql
-- Its output is checked against sql/walkthrough.expected (ctest walkthrough_shell, which runs it
-- in a temporary folder: tests/clients/run_sql_script.sh walkthrough build/datalog.so).
--
-- The output must not depend on the day it runs, so every fact gets an explicit valid time
-- in the past (a fact without one is valid from its transaction's wall-clock time), no
-- valid time ends in the future, and no query shows transaction wall-clock times.
--
-- The graph: six people, who follows whom, three companies, and employment and salary
-- histories with valid time. Section numbers in [brackets] point to the dialect reference
-- (../shared/LANGUAGE.md, §1-§17).

.load ./build/datalog
.headers on
.mode box

CREATE VIRTUAL TABLE g USING datalog;   -- its index: walkthrough.db-g.graph

.print
.print '== 1. transact: facts with a transaction-level valid time [§4]'
-- datalog_exec runs a script of Datalog commands and returns one line per command. The map
-- before the facts gives all of them a valid time: true from 2015-01-01 on.
SELECT datalog_exec('g', '
  (transact {:valid-from "2015-01-01"}
   [[:ana :person/name "Ana Lima"]   [:ana :person/born 1985] [:ana :person/handle "ana_l"]
    [:ana :person/email "ana@globex.example"]
    [:ben :person/name "Ben Okafor"] [:ben :person/born 1990] [:ben :person/handle "benok42"]
    [:ben :person/email "ben@globex.example"]
    [:cai :person/name "Cai Wen"]    [:cai :person/born 1978] [:cai :person/handle "cai.w"]
    [:dee :person/name "Dee Patel"]  [:dee :person/born 1995] [:dee :person/handle "dee-p7"]
    [:dee :person/email "dee@acme.example"]
    [:eli :person/name "Eli Novak"]  [:eli :person/born 2001] [:eli :person/handle "eli"]
    [:fay :person/name "Fay Moreau"] [:fay :person/born 1992] [:fay :person/handle "fay_m"]
    [:fay :person/email "fay@acme.example"]
    [:acme :company/name "Acme"] [:globex :company/name "Globex"] [:initech :company/name "Initech"]
    [:ana :follows :ben] [:ben :follows :cai] [:cai :follows :dee] [:dee :follows :ben]
    [:eli :follows :ana] [:eli :follows :fay]])') AS result;

.print
.print '== 2. transact: per-fact valid time, for employment and salary histories [§4, §12]'
-- A map as a fact's 4th element gives that fact its own window [valid-from, valid-to);
-- without :valid-to the fact stays true. Ana moved from Acme to Globex on 2021-06-01.
SELECT datalog_exec('g', '
  (transact
   [[:ana :works-at :acme    {:valid-from "2016-03-01" :valid-to "2021-06-01"}]
    [:ana :works-at :globex  {:valid-from "2021-06-01"}]
    [:ben :works-at :globex  {:valid-from "2018-01-01"}]
    [:cai :works-at :acme    {:valid-from "2010-05-01" :valid-to "2019-01-01"}]
    [:cai :works-at :initech {:valid-from "2019-01-01"}]
    [:dee :works-at :acme    {:valid-from "2019-02-01"}]
    [:fay :works-at :acme    {:valid-from "2020-09-01"}]
    [:ana :salary 5200 {:valid-from "2016-03-01" :valid-to "2021-06-01"}]
    [:ana :salary 6100 {:valid-from "2021-06-01"}]
    [:ben :salary 4800 {:valid-from "2018-01-01" :valid-to "2022-01-01"}]
    [:ben :salary 5600 {:valid-from "2022-01-01"}]
    [:cai :salary 7000 {:valid-from "2010-05-01" :valid-to "2019-01-01"}]
    [:cai :salary 7500 {:valid-from "2019-01-01"}]
    [:dee :salary 4100 {:valid-from "2019-02-01"}]
    [:fay :salary 4100 {:valid-from "2020-09-01"}]])') AS result;

.print
.print '-- The same facts are rows of the store table g (valid now, the default):'
SELECT e, v AS company, valid_from, valid_to, tx FROM g WHERE a = ':works-at' ORDER BY e;

.print
.print '== 3. Queries from SQL: patterns and joins [§6, §7]'
-- datalog_q(graph, query, args...) is a table-valued function: c1..c8 are the :find elements
-- as SQL values (entities show as their idents). Two patterns sharing ?p join on it; the
-- company is a third pattern on the value of :works-at.
SELECT c1 AS person, c2 AS company
  FROM datalog_q('g', '(query [:find ?name ?cname
                               :where [?p :person/name ?name]
                                      [?p :works-at ?c]
                                      [?c :company/name ?cname]])')
 ORDER BY person;

.print
.print '-- A variable in attribute position binds the attribute: everything about :dee'
SELECT c1 AS attribute, c2 AS value
  FROM datalog_q('g', '(query [:find ?a ?v :where [:dee ?a ?v]])') ORDER BY attribute;

.print
.print '-- The hidden edn column has the whole row as EDN (strings quoted, keywords as :kw)'
SELECT edn FROM datalog_q('g', '(query [:find ?p ?c :where [?p :works-at ?c] [?c :company/name "Acme"]])')
 ORDER BY edn;

.print
.print '== 4. Expressions: comparison, arithmetic, strings, regexes [§8]'
-- [(pred ...)] filters rows; [(f ...) ?out] binds a result.
.print '-- Comparison and arithmetic: age in 2025 of people born before 1990, and a 10% raise'
SELECT c1 AS name, c2 AS age_in_2025, c3 AS salary, c4 AS raised
  FROM datalog_q('g', '(query [:find ?name ?age ?s ?raised
                               :where [?p :person/name ?name] [?p :person/born ?b]
                                      [(< ?b 1990)]
                                      [(- 2025 ?b) ?age]
                                      [?p :salary ?s]
                                      [(* ?s 11) ?s11] [(/ ?s11 10) ?raised]])')
 ORDER BY name;

.print
.print '-- Strings: ends-with?, contains?, subs, starts-with?, lower-case, str, upper-case,'
.print '-- count (expressions nest), and re-find'
SELECT c1 AS name, c2 AS mention, c3 AS initials, c4 AS domain, c5 AS len
  FROM datalog_q('g', '(query [:find ?name ?mention ?initials ?domain ?len
                               :where [?p :person/name ?name] [?p :person/email ?mail]
                                      [(ends-with? ?mail ".example")]
                                      [(contains? ?mail "@")]
                                      [(subs ?name 0 1) ?i]
                                      [(starts-with? ?mail (lower-case ?i))]
                                      [?p :person/handle ?h]
                                      [(str "@" ?h) ?mention]
                                      [(upper-case ?i) ?initials]
                                      [(re-find "[a-z]+[.]example$" ?mail) ?domain]
                                      [(count ?name) ?len]])')
 ORDER BY name;

.print
.print '-- Regexes (RE2 syntax): matches? searches anywhere; re-matches must match the whole'
.print '-- string (else nil); re-find returns the first match (else nil)'
-- A backslash is escaped in a Datalog string, so the regex \d is written "\\d".
-- A boolean comes to SQL as 0 / 1, nil as NULL.
SELECT c1 AS handle, c2 AS has_digit, c3 AS whole_word, c4 AS digits
  FROM datalog_q('g', '(query [:find ?h ?d ?w ?n
                               :where [_ :person/handle ?h]
                                      [(matches? ?h "\\d") ?d]
                                      [(re-matches "[a-z]+" ?h) ?w]
                                      [(re-find "\\d+" ?h) ?n]])')
 ORDER BY handle;

.print
.print '-- Handles of letters, an underscore and one more letter (^ and $ anchor the search)'
SELECT c1 AS handle FROM datalog_q('g', '(query [:find ?h :where [_ :person/handle ?h]
                                                           [(matches? ?h "^[a-z]+_[a-z]$")]])')
 ORDER BY handle;

.print
.print '== 5. Rules: recursive, mutually recursive, with not and or inside [§9]'
-- Rules persist in the graph file. Two rules with one head name form a disjunction.
SELECT datalog_exec('g', '
  (rule [(reach ?a ?b) [?a :follows ?b]])
  (rule [(reach ?a ?b) [?a :follows ?m] (reach ?m ?b)])

  ; mutual recursion: an odd / even number of :follows hops apart
  (rule [(odd-hops ?a ?b) [?a :follows ?b]])
  (rule [(odd-hops ?a ?b) [?a :follows ?m] (even-hops ?m ?b)])
  (rule [(even-hops ?a ?b) [?a :follows ?m] (odd-hops ?m ?b)])

  ; not inside a rule: people with no employer at the queried valid time
  (rule [(between-jobs ?p) [?p :person/name _] (not [?p :works-at _])])

  ; or inside a rule: how to reach someone, by e-mail or else by their handle
  (rule [(contact ?p ?c) [?p :person/handle ?h]
    (or-join [?p ?h ?c] [?p :person/email ?c] (and [(missing? ?p :person/email)] [(str "@" ?h) ?c]))])') AS result;

.print
.print '-- Whom does Eli reach through :follows? (recursive; a cycle ben -> cai -> dee -> ben)'
SELECT c1 AS reached FROM datalog_q('g', '(query [:find ?n :where (reach :eli ?x) [?x :person/name ?n]])')
 ORDER BY reached;

.print
.print '-- Odd and even hop counts from Ana (mutually recursive; on the cycle, both)'
SELECT c1 AS who, c2 AS parity
  FROM datalog_q('g', '(query [:find ?x ?parity
                               :where (or (and (odd-hops :ana ?x) [(ground "odd") ?parity])
                                          (and (even-hops :ana ?x) [(ground "even") ?parity]))])')
 ORDER BY who, parity;

.print
.print '-- Between jobs now, and on 2018-06-01'
SELECT 'now' AS at, c1 AS person FROM datalog_q('g', '(query [:find ?p :where (between-jobs ?p)])')
UNION ALL
SELECT '2018-06-01', c1 FROM datalog_q('g', '(query [:find ?p :valid-at "2018-06-01"
                                                     :where (between-jobs ?p)])')
 ORDER BY at, person;

.print
.print '-- Contacts'
SELECT c1 AS person, c2 AS contact FROM datalog_q('g', '(query [:find ?p ?c :where (contact ?p ?c)])')
 ORDER BY person;

.print
.print '== 6. not, not-join, or, or-join in queries [§10, §11]'
.print '-- not: who follows nobody?'
SELECT c1 AS name FROM datalog_q('g', '(query [:find ?n :where [?p :person/name ?n]
                                                         (not [?p :follows _])])');

.print
.print '-- not-join: who follows nobody that works at Acme? (?f is private to the not-join)'
SELECT c1 AS name FROM datalog_q('g', '(query [:find ?n :where [?p :person/name ?n]
                                                         (not-join [?p] [?p :follows ?f]
                                                                        [?f :works-at :acme])])')
 ORDER BY name;

.print
.print '-- or: who works at Acme or at Initech?'
SELECT c1 AS name FROM datalog_q('g', '(query [:find ?n :where [?p :person/name ?n]
                                                         (or [?p :works-at :acme]
                                                             [?p :works-at :initech])])')
 ORDER BY name;

.print
.print '-- or-join: who was born after 1994, or follows someone at Globex? (branches bind'
.print '-- different private variables; only ?p joins)'
SELECT c1 AS name FROM datalog_q('g', '(query [:find ?n :where [?p :person/name ?n]
                                                         (or-join [?p]
                                                           (and [?p :person/born ?b] [(> ?b 1994)])
                                                           (and [?p :follows ?f] [?f :works-at :globex]))])')
 ORDER BY name;

.print
.print '== 7. Aggregates and :with [§14]'
-- Grouped by the plain :find variables; rows come in ascending group order.
SELECT c1 AS company, c2 AS people, c3 AS total, c4 AS lowest, c5 AS highest, c6 AS average,
       c7 AS distinct_salaries
  FROM datalog_q('g', '(query [:find ?cn (count ?p) (sum ?s) (min ?s) (max ?s) (avg ?s)
                                     (count-distinct ?s)
                               :where [?p :works-at ?c] [?c :company/name ?cn] [?p :salary ?s]])');

.print
.print '-- Results are bags: Dee and Fay both earn 4100, and both count. Datomic (sets) needs'
.print '-- :with ?p to keep the two 4100s apart; here it changes nothing (it never splits a group).'
SELECT 'without :with' AS query, c1 AS company, c2 AS total
  FROM datalog_q('g', '(query [:find ?c (sum ?s) :where [?p :works-at ?c] [?p :salary ?s]
                                                        [(= ?c :acme)]])')
UNION ALL
SELECT ':with ?p', c1, c2
  FROM datalog_q('g', '(query [:find ?c (sum ?s) :with ?p
                               :where [?p :works-at ?c] [?p :salary ?s] [(= ?c :acme)]])');

.print
.print '== 8. Window functions [§14]'
-- Every row keeps its own value; a window adds a column computed over its partition.
SELECT c1 AS name, c2 AS salary, c3 AS rank, c4 AS dense_rank, c5 AS row_number,
       c6 AS running_total, c7 AS previous, c8 AS next
  FROM datalog_q('g', '(query [:find ?n ?s
                                     (rank :over (:order-by ?s))
                                     (dense-rank :over (:order-by ?s))
                                     (row-number :over (:order-by ?n))
                                     (sum ?s :over (:order-by ?n))
                                     (lag ?s :over (:order-by ?n))
                                     (lead ?s :over (:order-by ?n))
                               :where [?p :person/name ?n] [?p :salary ?s]])')
 ORDER BY name;

.print
.print '-- :partition-by: rank within each company, highest salary first'
SELECT c1 AS company, c2 AS name, c3 AS salary, c4 AS rank_in_company
  FROM datalog_q('g', '(query [:find ?c ?n ?s (rank :over (:partition-by ?c :order-by ?s :desc))
                               :where [?p :works-at ?c] [?p :person/name ?n] [?p :salary ?s]])')
 ORDER BY company, rank_in_company, name;

.print
.print '-- Aggregate and window together: the window runs over the aggregated rows, where the'
.print "-- aggregated ?s holds each group's total: companies ranked by payroll"
SELECT c1 AS company, c2 AS payroll, c3 AS payroll_rank
  FROM datalog_q('g', '(query [:find ?c (sum ?s) (rank :over (:order-by ?s :desc))
                               :where [?p :works-at ?c] [?p :salary ?s]])')
 ORDER BY payroll_rank;

.print
.print '== 9. Valid time: :valid-at and :any-valid-time [§12]'
.print '-- Who worked where on 2020-01-01?'
SELECT c1 AS person, c2 AS company
  FROM datalog_q('g', '(query [:find ?p ?c :valid-at "2020-01-01" :where [?p :works-at ?c]])')
 ORDER BY person;

.print
.print '-- Every employment ever (:any-valid-time), with its window from the pseudo-attributes'
.print '-- :db/valid-from and :db/valid-to (ms; open-ended = the largest integer) [§13]'
SELECT c1 AS person, c2 AS company,
       strftime('%Y-%m-%d', c3 / 1000, 'unixepoch') AS valid_from,
       CASE WHEN c4 = 9223372036854775807 THEN '(open)'
            ELSE strftime('%Y-%m-%d', c4 / 1000, 'unixepoch') END AS valid_to,
       c5 AS tx_count
  FROM datalog_q('g', '(query [:find ?p ?c ?from ?to ?tx :any-valid-time
                               :where [?p :works-at ?c] [?p :db/valid-from ?from]
                                      [?p :db/valid-to ?to] [?p :db/tx-count ?tx]])')
 ORDER BY person, valid_from;

.print
.print '-- :db/valid-at binds the instant the query looks at (nil under :any-valid-time)'
SELECT c1 AS at_ms, strftime('%Y-%m-%d', c1 / 1000, 'unixepoch') AS at
  FROM datalog_q('g', '(query [:find ?t :valid-at "2020-01-01" :where [:ana :person/name _]
                                                              [:ana :db/valid-at ?t]])');

.print
.print '-- Salary history with lag: each raise, ordered by valid-from within each person'
SELECT c1 AS name, strftime('%Y-%m-%d', c2 / 1000, 'unixepoch') AS since, c3 AS salary,
       c4 AS before, c3 - c4 AS raise
  FROM datalog_q('g', '(query [:find ?n ?from ?s (lag ?s :over (:partition-by ?p :order-by ?from))
                               :any-valid-time
                               :where [?p :person/name ?n] [?p :salary ?s] [?p :db/valid-from ?from]])')
 ORDER BY name, since;

.print
.print '== 10. retract, and transaction time: :as-of [§5, §12]'
-- Eli stops following Fay. The retraction is a new transaction; history keeps the fact.
SELECT datalog_exec('g', '(retract [[:eli :follows :fay]])') AS result;
SELECT 'now' AS as_of, c1 AS eli_follows
  FROM datalog_q('g', '(query [:find ?f :where [:eli :follows ?f]])')
UNION ALL
SELECT 'tx 2', c1 FROM datalog_q('g', '(query [:find ?f :as-of 2 :where [:eli :follows ?f]])')
 ORDER BY as_of, eli_follows;

.print
.print '-- :as-of also takes a wall-clock time: before anything was written, the graph is empty;'
.print '-- at a time after every write, it is the current graph'
SELECT c1 AS facts_in_1999 FROM datalog_q('g', '(query [:find (count ?e) :as-of "1999-01-01"
                                                        :any-valid-time :where [?e _ _]])');
SELECT c1 AS follows_in_2999 FROM datalog_q('g', '(query [:find (count ?f) :as-of "2999-01-01"
                                                          :where [:eli :follows ?f]])');

.print
.print '== 11. get-else, missing?, ground'
SELECT c1 AS name, c2 AS email, c3 AS no_email, c4 AS source
  FROM datalog_q('g', '(query [:find ?n ?mail ?none ?src
                               :where [?p :person/name ?n]
                                      [(get-else ?p :person/email "-") ?mail]
                                      [(missing? ?p :person/email) ?none]
                                      [(ground "walkthrough") ?src]])')
 ORDER BY name;

.print
.print '== 12. :in bindings, passed as SQL arguments after the query'
.print "-- A scalar: SQL values as they are (TEXT ':x' is a keyword, other TEXT a string)"
SELECT c1 AS name FROM datalog_q('g', '(query [:find ?n :in ?year
                                                :where [?p :person/born ?b] [(> ?b ?year)]
                                                       [?p :person/name ?n]])', 1991)
 ORDER BY name;

.print
.print '-- A tuple [?a ?b], as EDN text'
SELECT c1 AS name FROM datalog_q('g', '(query [:find ?n :in [?c ?min]
                                                :where [?p :works-at ?c] [?p :salary ?s]
                                                       [(>= ?s ?min)] [?p :person/name ?n]])',
                                 '[:globex 6000]');

.print
.print '-- A collection [?x ...]: one row per element'
SELECT c1 AS handle, c2 AS name FROM datalog_q('g', '(query [:find ?h ?n :in [?h ...]
                                                     :where [?p :person/handle ?h] [?p :person/name ?n]])',
                                 '["eli" "cai.w" "nobody"]')
 ORDER BY handle;

.print
.print '-- A relation [[?a ?b]]: a table of bonuses, built from a SQL table with group_concat'
CREATE TABLE bonuses(person TEXT, bonus INTEGER);
INSERT INTO bonuses VALUES (':ana', 500), (':dee', 300), (':fay', 300);
SELECT c1 AS person, c2 AS salary, c3 AS bonus, c4 AS total
  FROM datalog_q('g', '(query [:find ?p ?s ?b ?t :in [[?p ?b]]
                               :where [?p :salary ?s] [(+ ?s ?b) ?t]])',
                 (SELECT '[' || group_concat('[' || person || ' ' || bonus || ']', ' ') || ']'
                    FROM bonuses))
 ORDER BY person;

.print
.print '-- A $slot is filled after the :in bindings: here $company, an entity'
SELECT c1 AS name FROM datalog_q('g', '(query [:find ?n :in ?min
                                                :where [?p :works-at $company] [?p :salary ?s]
                                                       [(>= ?s ?min)] [?p :person/name ?n]])',
                                 4000, ':acme')
 ORDER BY name;

.print
.print '== 13. Named query tables: columns named after :find, bindings as hidden columns'
-- :in ?company and $since become hidden columns called company and since. Give them with
-- WHERE company = ... or as table-function arguments, in declaration order.
CREATE VIRTUAL TABLE staff USING datalog_query(g,
  '(query [:find ?name ?salary :in ?company :valid-at $since
           :where [?p :works-at ?company] [?p :person/name ?name] [?p :salary ?salary]])');
SELECT name, type, hidden FROM pragma_table_xinfo('staff');

.print
.print "-- Acme's staff on 2020-01-01 (WHERE on the hidden columns)"
SELECT name, salary FROM staff WHERE company = ':acme' AND since = '2020-01-01' ORDER BY name;

.print
.print "-- Acme's staff on 2025-01-01 (table-function arguments, in column order)"
SELECT name, salary FROM staff(':acme', '2025-01-01') ORDER BY name;
.print
.print "-- A :valid-at slot also takes 'any' (every window). Each pattern then matches any of its"
.print "-- windows, unaligned: Ana's Globex-era salary pairs with her Acme job"
SELECT name, salary FROM staff(':acme', 'any') ORDER BY name, salary;

.print
.print '-- $slots in entity, rule-argument, expression and value position: whom $who reaches,'
.print '-- born after $born_after, except the one whose handle is $skip'
CREATE VIRTUAL TABLE reached_by USING datalog_query(g,
  '(query [:find ?me ?name
           :where [$who :person/name ?me] (reach $who ?x) [?x :person/name ?name]
                  [?x :person/born ?b] [(> ?b $born_after)] (not [?x :person/handle $skip])])');
SELECT name FROM pragma_table_xinfo('reached_by') WHERE hidden = 1;
SELECT me, name FROM reached_by WHERE who = ':eli' AND born_after = 1980 AND skip = 'dee-p7'
 ORDER BY name;

.print
.print '-- A named query table joins ordinary SQL tables: staff with their bonuses'
SELECT s.name, s.salary, b.bonus, s.salary + b.bonus AS total
  FROM bonuses AS b
  JOIN datalog_q('g', '(query [:find ?p ?n :where [?p :person/name ?n]])') AS who ON who.c1 = b.person
  JOIN staff(':acme', '2025-01-01') AS s ON s.name = who.c2
 ORDER BY s.name;

.print
.print '-- Equalities on :find columns are pushed into the query'
SELECT salary FROM staff WHERE company = ':globex' AND since = '2025-01-01' AND name = 'Ben Okafor';

.print
.print '-- :as-of from a hidden column: the graph as it was after each transaction'
CREATE VIRTUAL TABLE follows_at USING datalog_query(g,
  '(query [:find (count ?f) :as-of $tx :where [:eli :follows ?f]])');
SELECT tx.n AS tx, f.count_f AS eli_follows
  FROM (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) AS tx
  JOIN follows_at AS f ON f.tx = tx.n;

.print
.print "== 14. Limits: :max-results caps a query's rows [§17]"
SELECT count(*) AS rows FROM datalog_q('g', '(query [:find ?n :max-results 6
                                                     :where [_ :person/name ?n]])');
.print '-- Asking for more than the cap is an error (the shell prints it and goes on):'
SELECT count(*) AS rows FROM datalog_q('g', '(query [:find ?n :max-results 5
                                                     :where [_ :person/name ?n]])');

.print
.print '== 15. datalog_explain: the plan the query ran with'
.mode list
SELECT datalog_explain('g', '(query [:find ?n :where [?p :works-at :acme] [?p :person/name ?n]
                                                     [?p :person/born ?b] [(> ?b 1990)]])') AS plan;
.mode box

.print
.print '== 16. datalog_rules and datalog_drop_rule'
.mode list
SELECT datalog_rules('g') AS rules;
.mode box
SELECT datalog_drop_rule('g', 'contact') AS removed;
SELECT datalog_drop_rule('g', 'odd-hops') + datalog_drop_rule('g', 'even-hops') AS removed;
.mode list
SELECT datalog_rules('g') AS rules;
.mode box

.print
.print '== 17. SQL transactions: one tx counter per COMMIT, nothing left by ROLLBACK [§18]'
BEGIN;
SELECT datalog_exec('g', '(transact {:valid-from "2024-01-01"} [[:gus :person/name "Gus Ito"]])
                          (rule [(colleague ?a ?b) [?a :works-at ?c] [?b :works-at ?c]
                                                   [(!= ?a ?b)]])') AS result;
INSERT INTO g(e, a, v, valid_from) VALUES (':gus', ':person/born', 1999, '2024-01-01');
SELECT c1 AS name, c2 AS born FROM datalog_q('g', '(query [:find ?n ?b :where [:gus :person/name ?n]
                                                                        [:gus :person/born ?b]])');
ROLLBACK;
.print '-- After ROLLBACK: no Gus, no colleague rule'
SELECT count(*) AS gus_facts FROM g WHERE e = ':gus';
SELECT datalog_rules('g') LIKE '%colleague%' AS colleague_rule_exists;

.print
.print '-- A committed transaction: every write shares the next counter (tx 4: none was used)'
BEGIN;
SELECT datalog_exec('g', '(transact {:valid-from "2024-01-01"} [[:gus :person/name "Gus Ito"]])') AS result;
INSERT INTO g(e, a, v, vtype, valid_from) VALUES (':gus', ':works-at', ':initech', 'ref', '2024-01-01');
INSERT INTO g(e, a, v, valid_from) VALUES (':gus', ':salary', 5000, '2024-01-01');
COMMIT;
SELECT a, v, tx FROM g WHERE e = ':gus' ORDER BY a;
