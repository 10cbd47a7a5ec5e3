#include "query_workloads.h"

// The catalog's entries leave the key fields out (keyed() sets them after): GCC 12 warns about
// omitted members even when they have default initializers.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace bench {
namespace {

// Baseline attribute ids (Attr in fixtures.h): 1 :val, 2 :next, 3 :banned, 4 :dep, 5 :status,
// 6 :blocked, 7 :tag-a, 8 :tag-b, 9 :dept, 10 :name.
const std::vector<long long> kToMillion = {1'000, 10'000, 100'000, 1'000'000};
const std::vector<long long> kTo100K = {1'000, 10'000, 100'000};
const std::vector<long long> kTo10K = {1'000, 10'000};
const std::vector<long long> kQuick = {1'000, 10'000};
const std::vector<long long> kQuickSmall = {1'000};

// 2099-01-01T00:00:00Z in milliseconds: the baseline's form of the valid-at instant.
constexpr const char* k2099Ms = "4070908800000";

FixtureSpec spec(std::string id, std::function<Fixture(long long)> build) {
  return {std::move(id), std::move(build)};
}

const std::string kReachSql =
    "WITH RECURSIVE reach(n) AS (SELECT v FROM facts WHERE e = 0 AND a = 2"
    " UNION SELECT f.v FROM facts f JOIN reach r ON f.e = r.n WHERE f.a = 2) SELECT n FROM reach";
const std::string kNotSql =
    "SELECT f.e FROM facts f WHERE f.a = 1 AND NOT EXISTS"
    " (SELECT 1 FROM facts b WHERE b.e = f.e AND b.a = 3 AND b.v = 1)";
const std::string kOrSql =
    "SELECT DISTINCT f.e FROM facts f WHERE f.a = 1 AND f.e IN"
    " (SELECT e FROM facts WHERE a = 7 AND v = 1 UNION SELECT e FROM facts WHERE a = 8 AND v = 1)";

void keyed(QueryWorkload& w, KeyKind kind, std::function<long long(long long)> range) {
  w.key = kind;
  w.key_range = std::move(range);
}

std::vector<QueryWorkload> build_catalog() {
  std::vector<QueryWorkload> w;
  // Point lookups draw their key from every entity of the data set; a single hot key would
  // measure one cached path through each B-tree instead.
  const auto every = [](long long n) { return n; };
  const FixtureSpec pop = spec("populate", [](long long n) { return populate(n); });
  const FixtureSpec join = spec("join", [](long long n) { return populate_for_join(n); });
  const FixtureSpec names = spec("names", [](long long n) { return with_names(n); });
  const FixtureSpec dept = spec("dept", [](long long n) { return with_dept(n, 10); });

  w.push_back({"query", "point_entity", pop, kToMillion, kQuick,
               "(query [:find ?v :where [$e :val ?v]])",
               "SELECT v FROM facts WHERE e = ?1 AND a = 1", {}, ""});
  keyed(w.back(), KeyKind::entity, every);
  w.push_back({"query", "point_attribute", pop, kToMillion, kQuick,
               "(query [:find ?e :where [?e :val _]])",
               "SELECT DISTINCT e FROM facts WHERE a = 1", {}, ""});
  w.push_back({"query", "join_3pattern", join, kToMillion, kQuick,
               "(query [:find ?v :where [$e :next ?m] [?m :next ?end] [?end :val ?v]])",
               "SELECT DISTINCT f3.v FROM facts f1 JOIN facts f2 ON f2.e = f1.v AND f2.a = 2"
               " JOIN facts f3 ON f3.e = f2.v AND f3.a = 1 WHERE f1.e = ?1 AND f1.a = 2",
               {}, ""});
  keyed(w.back(), KeyKind::entity, [](long long n) { return n - 2; });  // e+2 exists
  w.push_back({"time_travel", "as_of_counter", pop, kToMillion, kQuick,
               "(query [:find ?v :as-of 999999 :where [$e :val ?v]])",
               "SELECT v FROM facts WHERE e = ?1 AND a = 1 AND tx <= 999999", {}, ""});
  keyed(w.back(), KeyKind::entity, every);
  w.push_back({"time_travel", "valid_at", pop, kToMillion, kQuick,
               "(query [:find ?v :valid-at \"2099-01-01T00:00:00Z\" :where [$e :val ?v]])",
               std::string("SELECT v FROM facts WHERE e = ?1 AND a = 1 AND valid_from <= ") +
                   k2099Ms + " AND (valid_to IS NULL OR valid_to > " + k2099Ms + ")",
               {}, ""});
  keyed(w.back(), KeyKind::entity, every);
  w.push_back({"prepared", "value_lookup", pop, kTo10K, kQuick,
               "(query [:find ?e :where [?e :val $val]])",
               "SELECT e FROM facts WHERE a = 1 AND v = ?1", {}, ""});
  keyed(w.back(), KeyKind::value, every);
  w.push_back({"prepared", "threshold_filter", pop, kTo10K, kQuick,
               "(query [:find ?e :where [?e :val ?v] [(< ?v $threshold)]])",
               "SELECT e FROM facts WHERE a = 1 AND v < ?1",
               [](long long n) { return std::vector<long long>{n / 2}; }, ""});

  // Recursion: the size is the chain depth, or the number of edges of the fan-out tree.
  for (const long long depth : {10LL, 100LL, 1000LL}) {
    w.push_back({"recursion", "chain", spec("chain", [](long long d) { return chain_graph(d); }),
                 {depth}, depth <= 100 ? std::vector<long long>{depth} : std::vector<long long>{},
                 "(query [:find ?to :where (reach :n0 ?to)])", kReachSql, {},
                 depth == 1000 ? "depth 1000 is ours (Minigraf stops at 100)" : ""});
  }
  w.push_back({"recursion", "fanout_w10_d3",
               spec("fanout", [](long long) { return fanout_graph(10, 3); }), {1110}, {1110},
               "(query [:find ?to :where (reach :n0 ?to)])", kReachSql, {},
               "size = 1110 edges"});

  // Negation and disjunction at 1K and 10K, plus the selectivity sweeps at 10K.
  w.push_back({"negation", "not_scale",
               spec("not", [](long long n) { return with_not_exclusion(n, n / 10); }), kTo10K,
               kQuick, "(query [:find ?e :where [?e :val ?v] (not [?e :banned true])])", kNotSql,
               {}, ""});
  w.push_back({"negation", "not_join_scale",
               spec("notjoin", [](long long n) { return with_not_join_exclusion(n, n / 10); }),
               kTo10K, kQuick,
               "(query [:find ?e :where [?e :val ?v] (not-join [?e] [?e :dep ?d] [?d :status "
               ":bad])])",
               "SELECT f.e FROM facts f WHERE f.a = 1 AND NOT EXISTS (SELECT 1 FROM facts d"
               " JOIN facts s ON s.e = d.v AND s.a = 5 AND s.v = ':bad' WHERE d.e = f.e AND d.a = 4)",
               {}, ""});
  w.push_back({"negation", "not_rule_body",
               spec("notrule", [](long long n) { return with_not_rule(n, n / 10); }), kTo10K,
               kQuick, "(query [:find ?e :where (eligible ?e)])",
               "SELECT f.e FROM facts f WHERE f.a = 1 AND NOT EXISTS"
               " (SELECT 1 FROM facts b WHERE b.e = f.e AND b.a = 6 AND b.v = 1)",
               {}, ""});
  for (const long long pct : {0LL, 25LL, 50LL, 75LL, 100LL}) {
    w.push_back({"negation", "not_selectivity/" + std::to_string(pct) + "pct",
                 spec("notsel" + std::to_string(pct),
                      [pct](long long n) { return with_not_exclusion(n, n * pct / 100); }),
                 {10'000}, pct == 50 ? std::vector<long long>{1'000} : std::vector<long long>{},
                 "(query [:find ?e :where [?e :val ?v] (not [?e :banned true])])", kNotSql, {},
                 ""});
  }
  w.push_back({"disjunction", "or_scale",
               spec("or", [](long long n) { return with_or_tags(n, n / 4, n / 4); }), kTo10K,
               kQuick,
               "(query [:find ?e :where [?e :val ?v] (or [?e :tag-a true] [?e :tag-b true])])",
               kOrSql, {}, ""});
  w.push_back({"disjunction", "or_join_scale",
               spec("or", [](long long n) { return with_or_tags(n, n / 4, n / 4); }), kTo10K,
               kQuick,
               "(query [:find ?e :where [?e :val ?v] (or-join [?e] [?e :tag-a true] [?e :tag-b "
               "true])])",
               kOrSql, {}, ""});
  w.push_back({"disjunction", "or_rule_body",
               spec("orrule", [](long long n) { return with_or_rule(n); }), kTo10K, kQuick,
               "(query [:find ?e :where (tagged ?e)])",
               "SELECT e FROM facts WHERE a = 7 AND v = 1 UNION SELECT e FROM facts WHERE a = 8 "
               "AND v = 1",
               {}, ""});
  for (const long long pct : {0LL, 25LL, 50LL, 75LL, 100LL}) {
    w.push_back({"disjunction", "or_selectivity/" + std::to_string(pct) + "pct",
                 spec("orsel" + std::to_string(pct),
                      [pct](long long n) { return with_or_tags(n, n * pct / 100, 0); }),
                 {10'000}, pct == 50 ? std::vector<long long>{1'000} : std::vector<long long>{},
                 "(query [:find ?e :where [?e :val ?v] (or [?e :tag-a true] [?e :tag-b true])])",
                 kOrSql, {}, ""});
  }

  w.push_back({"aggregation", "count_scale", pop, kTo10K, kQuick,
               "(query [:find (count ?e) :where [?e :val ?v]])",
               "SELECT count(e) FROM facts WHERE a = 1", {}, ""});
  w.push_back({"aggregation", "grouped_count_scale", dept, kTo10K, kQuick,
               "(query [:find ?dept (count ?e) :where [?e :dept ?dept]])",
               "SELECT v, count(e) FROM facts WHERE a = 9 GROUP BY v", {}, ""});
  w.push_back({"aggregation", "sum_scale", pop, kTo10K, kQuick,
               "(query [:find (sum ?v) :where [?e :val ?v]])",
               "SELECT sum(v) FROM facts WHERE a = 1", {}, ""});
  w.push_back({"aggregation", "with_grouped_sum", dept, kTo10K, kQuick,
               "(query [:find ?dept (sum ?v) :with ?e :where [?e :dept ?dept] [?e :val ?v]])",
               "SELECT d.v, sum(x.v) FROM facts d JOIN facts x ON x.e = d.e AND x.a = 1"
               " WHERE d.a = 9 GROUP BY d.v",
               {}, "one row per department (Minigraf's :with returns n rows)"});
  w.push_back({"aggregation", "count_distinct_scale",
               spec("dups", [](long long n) { return with_duplicates(n, 50); }), kTo10K, kQuick,
               "(query [:find (count-distinct ?v) :where [?e :val ?v]])",
               "SELECT count(DISTINCT v) FROM facts WHERE a = 1", {}, ""});

  w.push_back({"expr", "filter_scale", pop, kTo100K, kQuick,
               "(query [:find ?e :where [?e :val ?v] [(< ?v {N/2})]])",
               "SELECT e FROM facts WHERE a = 1 AND v < {N/2}", {}, ""});
  w.push_back({"expr", "binding_scale", pop, kTo100K, kQuick,
               "(query [:find ?result :where [?e :val ?v] [(+ ?v 1) ?result]])",
               "SELECT DISTINCT v + 1 FROM facts WHERE a = 1", {}, ""});
  w.push_back({"expr", "binding_into_agg", pop, kTo100K, kQuick,
               "(query [:find (sum ?doubled) :where [?e :val ?v] [(* ?v 2) ?doubled]])",
               "SELECT sum(v * 2) FROM facts WHERE a = 1", {}, ""});

  w.push_back({"window", "running_sum", pop, kTo100K, kQuick,
               "(query [:find ?e (sum ?v :over (:order-by ?v)) :where [?e :val ?v]])",
               "SELECT e, sum(v) OVER (ORDER BY v) FROM facts WHERE a = 1", {}, ""});
  w.push_back({"window", "rank", pop, kTo100K, kQuick,
               "(query [:find ?e (rank :over (:order-by ?v)) :where [?e :val ?v]])",
               "SELECT e, rank() OVER (ORDER BY v) FROM facts WHERE a = 1", {}, ""});
  w.push_back({"window", "row_number", pop, kTo100K, kQuick,
               "(query [:find ?e (row-number :over (:order-by ?v)) :where [?e :val ?v]])",
               "SELECT e, row_number() OVER (ORDER BY v) FROM facts WHERE a = 1", {}, ""});

  w.push_back({"temporal_metadata", "tx_time", pop, kTo100K, kQuick,
               "(query [:find ?e ?t :any-valid-time :where [?e :val ?v] [?e :db/tx-count ?t]])",
               "SELECT e, tx FROM facts WHERE a = 1", {}, ""});
  w.push_back({"temporal_metadata", "valid_from", pop, kTo100K, kQuick,
               "(query [:find ?e ?vf :any-valid-time :where [?e :val ?v] [?e :db/valid-from "
               "?vf]])",
               "SELECT e, valid_from FROM facts WHERE a = 1", {}, ""});
  w.push_back({"temporal_metadata", "valid_to", pop, kTo100K, kQuick,
               "(query [:find ?e ?vt :any-valid-time :where [?e :val ?v] [?e :db/valid-to ?vt]])",
               "SELECT e, valid_to FROM facts WHERE a = 1", {}, ""});

  w.push_back({"udf", "aggregate_sum_dispatch", pop, kTo10K, kQuickSmall,
               "(query [:find (sum ?v) :where [?e :val ?v]])",
               "SELECT sum(v) FROM facts WHERE a = 1", {},
               "no UDF API: the built-in sum stands in for udf_sum"});
  w.push_back({"udf", "predicate_filter_dispatch", pop, kTo10K, kQuickSmall,
               "(query [:find ?e :where [?e :val ?v] [(> ?v 500)]])",
               "SELECT e FROM facts WHERE a = 1 AND v > 500", {},
               "no UDF API: the built-in > stands in for udf_gt; written with [ ] as intended"});
  w.push_back({"query", "regex_filter",
               spec("strings", [](long long n) { return with_string_vals(n); }), kTo10K, kQuick,
               "(query [:find ?e :where [?e :val ?v] [(matches? ?v \"item-\\\\d+\")]])",
               "SELECT e FROM facts WHERE a = 1 AND v GLOB 'item-[0-9]*'", {},
               "written with [ ] as intended; the baseline uses GLOB (SQLite has no regexp)"});

  w.push_back({"btree_lookup", "entity_point", names, kTo100K, kQuick,
               "(query [:find ?n :where [$e :name ?n]])",
               "SELECT v FROM facts WHERE e = ?1 AND a = 10", {}, ""});
  keyed(w.back(), KeyKind::entity, every);
  w.push_back({"btree_lookup", "attribute_scan", names, kTo100K, kQuick,
               "(query [:find ?e ?n :where [?e :name ?n]])",
               "SELECT e, v FROM facts WHERE a = 10", {}, ""});
  w.push_back({"query", "predicate_pushdown", names, kTo100K, kQuick,
               "(query [:find ?e ?n :where [?e :val ?v] [?e :name ?n] [(> ?v {9N/10})]])",
               "SELECT f.e, n.v FROM facts f JOIN facts n ON n.e = f.e AND n.a = 10"
               " WHERE f.a = 1 AND f.v > {9N/10}",
               {}, ""});
  return w;
}

}  // namespace

const std::vector<QueryWorkload>& query_workloads() {
  static const std::vector<QueryWorkload> catalog = build_catalog();
  return catalog;
}

std::string with_size(const std::string& text, long long n) {
  std::string out = text;
  for (const auto& [marker, value] :
       {std::pair<std::string, long long>{"{N/2}", n / 2}, {"{9N/10}", 9 * n / 10}}) {
    for (std::size_t at = out.find(marker); at != std::string::npos; at = out.find(marker)) {
      out.replace(at, marker.size(), std::to_string(value));
    }
  }
  return out;
}

}  // namespace bench
