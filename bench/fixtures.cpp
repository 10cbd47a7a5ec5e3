#include "fixtures.h"

#include <string_view>

namespace bench {
namespace {

// Disjoint baseline id ranges per ident prefix; `:e{i}` and `:n{i}` keep their number.
constexpr long long kDeptBase = 1'000'000'000;
constexpr long long kBadDept = 2'000'000'000;
constexpr long long kBenchBase = 3'000'000'000;

void add_vals(Fixture& f, long long n) {
  for (long long i = 0; i < n; ++i) f.facts.push_back({numbered(":e", i), Attr::val, i});
}

void add_flag(Fixture& f, long long from, long long to, Attr a) {
  for (long long i = from; i < to; ++i) f.facts.push_back({numbered(":e", i), a, true});
}

const std::vector<std::string> kReachRules = {
    "(rule [(reach ?from ?to) [?from :next ?to]])",
    "(rule [(reach ?from ?to) [?from :next ?mid] (reach ?mid ?to)])"};

}  // namespace

const char* attr_keyword(Attr a) {
  switch (a) {
    case Attr::val: return ":val";
    case Attr::next: return ":next";
    case Attr::banned: return ":banned";
    case Attr::dep: return ":dep";
    case Attr::status: return ":status";
    case Attr::blocked: return ":blocked";
    case Attr::tag_a: return ":tag-a";
    case Attr::tag_b: return ":tag-b";
    case Attr::dept: return ":dept";
    case Attr::name: return ":name";
  }
  return ":unknown";
}

const std::vector<Attr>& all_attrs() {
  static const std::vector<Attr> attrs = {Attr::val,     Attr::next,  Attr::banned, Attr::dep,
                                          Attr::status,  Attr::blocked, Attr::tag_a, Attr::tag_b,
                                          Attr::dept,    Attr::name};
  return attrs;
}

Entity numbered(const char* prefix, long long i) {
  const std::string_view p = prefix;
  long long id = i;
  if (p == ":d") id = kDeptBase + i;
  if (p == ":eb") id = kBenchBase + 1 + i;
  return {std::string(prefix) + std::to_string(i), id};
}

std::string fact_edn(const Fact& f) {
  std::string out = "[" + f.e.ident + " " + attr_keyword(f.a) + " ";
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, long long>) out += std::to_string(v);
        if constexpr (std::is_same_v<T, std::string>) out += "\"" + v + "\"";
        if constexpr (std::is_same_v<T, bool>) out += v ? "true" : "false";
        if constexpr (std::is_same_v<T, Entity>) out += v.ident;
        if constexpr (std::is_same_v<T, Keyword>) out += v.text;
      },
      f.v);
  return out + "]";
}

std::string facts_command(const char* verb, const std::vector<Fact>& facts, std::size_t begin,
                          std::size_t end) {
  std::string out = std::string("(") + verb + " [";
  for (std::size_t i = begin; i < end; ++i) out += (i == begin ? "" : " ") + fact_edn(facts[i]);
  return out + "])";
}

Fixture populate(long long n) {
  Fixture f;
  add_vals(f, n);
  return f;
}

Fixture chain_graph(long long depth) {
  Fixture f;
  f.batch = 200;
  for (long long i = 0; i < depth; ++i) {
    f.facts.push_back({numbered(":n", i), Attr::next, numbered(":n", i + 1)});
  }
  f.rules = kReachRules;
  return f;
}

Fixture fanout_graph(long long width, long long depth) {
  Fixture f;
  f.batch = 200;
  long long next_id = 1;
  std::vector<long long> level = {0};
  for (long long d = 0; d < depth; ++d) {
    std::vector<long long> children;
    for (const long long parent : level) {
      for (long long c = 0; c < width; ++c) {
        f.facts.push_back({numbered(":n", parent), Attr::next, numbered(":n", next_id)});
        children.push_back(next_id++);
      }
    }
    level = std::move(children);
  }
  f.rules = kReachRules;
  return f;
}

Fixture populate_for_join(long long n) {
  Fixture f;
  for (long long i = 0; i < n; ++i) {
    f.facts.push_back({numbered(":e", i), Attr::val, i});
    if (i + 1 < n) f.facts.push_back({numbered(":e", i), Attr::next, numbered(":e", i + 1)});
  }
  return f;
}

Fixture with_not_exclusion(long long n, long long excluded) {
  Fixture f = populate(n);
  add_flag(f, 0, excluded, Attr::banned);
  return f;
}

Fixture with_not_join_exclusion(long long n, long long excluded) {
  Fixture f = populate(n);
  const Entity bad{":d-bad", kBadDept};
  f.facts.push_back({bad, Attr::status, Keyword{":bad"}});
  for (long long i = 0; i < excluded; ++i) f.facts.push_back({numbered(":e", i), Attr::dep, bad});
  return f;
}

Fixture with_not_rule(long long n, long long excluded) {
  Fixture f = populate(n);
  add_flag(f, 0, excluded, Attr::blocked);
  f.rules = {"(rule [(eligible ?x) [?x :val ?v] (not [?x :blocked true])])"};
  return f;
}

Fixture with_or_tags(long long n, long long a, long long b) {
  Fixture f = populate(n);
  add_flag(f, 0, a, Attr::tag_a);
  add_flag(f, n - b, n, Attr::tag_b);
  return f;
}

Fixture with_or_rule(long long n) {
  Fixture f = populate(n);
  add_flag(f, 0, n / 2, Attr::tag_a);
  add_flag(f, n / 2, n, Attr::tag_b);
  f.rules = {"(rule [(tagged ?x) (or [?x :tag-a true] [?x :tag-b true])])"};
  return f;
}

Fixture with_dept(long long n, long long k) {
  Fixture f;
  for (long long i = 0; i < n; ++i) {
    f.facts.push_back({numbered(":e", i), Attr::val, i});
    f.facts.push_back({numbered(":e", i), Attr::dept, numbered(":d", i % k)});
  }
  return f;
}

Fixture with_names(long long n) {
  Fixture f;
  for (long long i = 0; i < n; ++i) {
    f.facts.push_back({numbered(":e", i), Attr::val, i});
    f.facts.push_back({numbered(":e", i), Attr::name, "entity" + std::to_string(i)});
  }
  return f;
}

Fixture with_duplicates(long long n, long long percent) {
  Fixture f;
  const long long distinct = n * (100 - percent) / 100;
  for (long long i = 0; i < n; ++i) f.facts.push_back({numbered(":e", i), Attr::val, i % distinct});
  return f;
}

Fixture with_string_vals(long long n) {
  Fixture f;
  for (long long i = 0; i < n; ++i) {
    f.facts.push_back({numbered(":e", i), Attr::val, "item-" + std::to_string(i)});
  }
  return f;
}

}  // namespace bench
