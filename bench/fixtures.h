// bench/fixtures.h: the data sets of WORKLOADS.md, generated once and loaded into both stores.
//
// A Fixture is a list of facts plus rule definitions. The same list goes into sqlite-datalog
// (Datalog `transact` commands of `batch` facts through datalog_exec) and into the plain-SQLite
// baseline (rows of the `facts` table), so both answer the same questions over the same data.
//
// Baseline encoding: an entity is an INTEGER (`:e7` -> 7; other idents get ids in disjoint
// ranges, see fixtures.cpp), an attribute is a small INTEGER id (the `attribute` table names
// them), a value is stored in its natural SQLite type: integers and booleans as INTEGER, strings
// as TEXT, references to entities as the entity's INTEGER id, keyword values as TEXT ':name'.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace bench {

enum class Attr : int { val = 1, next, banned, dep, status, blocked, tag_a, tag_b, dept, name };

const char* attr_keyword(Attr a);  // ":val", ":tag-a", ...
const std::vector<Attr>& all_attrs();

struct Entity {
  std::string ident;  // ":e7"
  long long id;       // the baseline's INTEGER for it
};

struct Keyword {
  std::string text;  // ":bad"
};

using FactValue = std::variant<long long, std::string, bool, Entity, Keyword>;

struct Fact {
  Entity e;
  Attr a;
  FactValue v;
};

struct Fixture {
  std::vector<Fact> facts;
  int batch = 100;                 // facts per `transact` command
  std::vector<std::string> rules;  // `(rule [...])` forms
};

// The fixtures, named as in WORKLOADS.md.
Fixture populate(long long n);                                   // [:e{i} :val i]
Fixture chain_graph(long long depth);                            // :next chain + reach rules
Fixture fanout_graph(long long width, long long depth);          // BFS tree + reach rules
Fixture populate_for_join(long long n);                          // :val and :next per entity
Fixture with_not_exclusion(long long n, long long excluded);     // :banned true for i < x
Fixture with_not_join_exclusion(long long n, long long excluded);  // :dep :d-bad for i < x
Fixture with_not_rule(long long n, long long excluded);          // :blocked + eligible rule
Fixture with_or_tags(long long n, long long a, long long b);     // :tag-a / :tag-b
Fixture with_or_rule(long long n);                               // tags + tagged rule
Fixture with_dept(long long n, long long k);                     // :dept :d{i%k}
Fixture with_names(long long n);                                 // :name "entity{i}"
Fixture with_duplicates(long long n, long long percent);         // :val i % (n*(100-p)/100)
Fixture with_string_vals(long long n);                           // :val "item-{i}"

Entity numbered(const char* prefix, long long i);  // ":e7" with its baseline id
// The Datalog text of a fact, `[:e7 :val 7]`.
std::string fact_edn(const Fact& f);
// `(transact [...])` / `(retract [...])` over facts[begin, end).
std::string facts_command(const char* verb, const std::vector<Fact>& facts, std::size_t begin,
                          std::size_t end);

}  // namespace bench
