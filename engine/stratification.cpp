// The rule set as a program: arities, the predicate dependency graph, negative cycles, the
// evaluation order of strongly connected components, and the rules a query reaches
// (engine/analyzer.h).
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>

#include "engine/analyzer.h"
#include "engine/ast_walk.h"
#include "engine/parse_error.h"

namespace datalog {

namespace {

struct Call {
  const ast::RuleCall* call;
  bool negative;  // inside not / not-join
};

// Calls in clauses, in text order, descending into or branches and negations.
void collect_calls(const std::vector<ast::Clause>& clauses, std::vector<Call>* out) {
  ast::walk_clauses(clauses, [&](const ast::Clause& c, bool negated) {
    if (const auto* call = std::get_if<ast::RuleCall>(&c.node)) out->push_back({call, negated});
  });
}

std::string arguments(std::size_t n) { return fmt::format("{} argument{}", n, n == 1 ? "" : "s"); }

Status invalid(std::string message) {
  return Status(StatusCode::InvalidArgument, std::move(message));
}

// Predicates (rule names) in order of first definition, and the calls between them.
struct DependencyGraph {
  struct Edge {
    std::size_t to;
    bool negative;
  };
  std::vector<std::string> names;
  std::map<std::string, std::size_t, std::less<>> index;
  std::vector<std::size_t> arity;
  std::vector<std::vector<Edge>> edges;  // only to defined predicates
};

Status build_graph(const std::vector<ast::Rule>& rules, DependencyGraph* g) {
  for (const auto& r : rules) {
    const auto [it, inserted] = g->index.emplace(r.name, g->names.size());
    if (inserted) {
      g->names.push_back(r.name);
      g->arity.push_back(r.head.size());
      g->edges.emplace_back();
    } else if (g->arity[it->second] != r.head.size()) {
      return invalid(
          fmt::format("rule '{}' is defined with {} and with {}; every definition of "
                      "a rule must have the same arity",
                      r.name, arguments(g->arity[it->second]), arguments(r.head.size())));
    }
  }
  for (const auto& r : rules) {
    const std::size_t from = g->index.at(r.name);
    std::vector<Call> calls;
    collect_calls(r.body, &calls);
    for (const Call& c : calls) {
      const auto it = g->index.find(c.call->name);
      if (it == g->index.end()) continue;  // defined later, or reported by check_rule_calls
      if (g->arity[it->second] != c.call->args.size()) {
        return invalid(fmt::format("rule '{}' calls '{}' with {}, but '{}' takes {}", r.name,
                                   c.call->name, arguments(c.call->args.size()), c.call->name,
                                   arguments(g->arity[it->second])));
      }
      g->edges[from].push_back({it->second, c.negative});
    }
  }
  return Status::OK();
}

// Tarjan's algorithm, iterative (no recursion depth to worry about). Components come out in
// reverse topological order of the call graph: each after every component it calls.
std::vector<std::vector<std::size_t>> components(const DependencyGraph& g) {
  constexpr std::size_t kUnvisited = static_cast<std::size_t>(-1);
  const std::size_t n = g.names.size();
  std::vector<std::size_t> order(n, kUnvisited), low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<std::size_t> stack;
  std::vector<std::vector<std::size_t>> result;
  std::size_t counter = 0;
  struct Frame {
    std::size_t node;
    std::size_t next_edge;
  };
  for (std::size_t root = 0; root < n; ++root) {
    if (order[root] != kUnvisited) continue;
    std::vector<Frame> frames{{root, 0}};
    order[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = true;
    while (!frames.empty()) {
      Frame& f = frames.back();
      const std::size_t v = f.node;
      if (f.next_edge < g.edges[v].size()) {
        const std::size_t w = g.edges[v][f.next_edge++].to;
        if (order[w] == kUnvisited) {
          order[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = true;
          frames.push_back({w, 0});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], order[w]);
        }
        continue;
      }
      if (low[v] == order[v]) {
        std::vector<std::size_t> component;
        std::size_t w = 0;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = false;
          component.push_back(w);
        } while (w != v);
        std::sort(component.begin(), component.end());  // first-definition order
        result.push_back(std::move(component));
      }
      frames.pop_back();
      if (!frames.empty()) {
        const std::size_t parent = frames.back().node;
        low[parent] = std::min(low[parent], low[v]);
      }
    }
  }
  return result;
}

Status check_negation(const DependencyGraph& g,
                      const std::vector<std::vector<std::size_t>>& comps) {
  std::vector<std::size_t> component_of(g.names.size(), 0);
  for (std::size_t c = 0; c < comps.size(); ++c) {
    for (std::size_t v : comps[c]) component_of[v] = c;
  }
  for (std::size_t v = 0; v < g.names.size(); ++v) {
    for (const auto& e : g.edges[v]) {
      if (e.negative && component_of[v] == component_of[e.to]) {
        return invalid(fmt::format(
            "unstratifiable: predicate '{}' is involved in a negative cycle through '{}'",
            g.names[v], g.names[e.to]));
      }
    }
  }
  return Status::OK();
}

std::string unknown_rule_hint(const std::string& name) {
  return fmt::format("(define it with (rule [({} ...) ...]))", name);
}

}  // namespace

Status check_rule_set(const std::vector<ast::Rule>& rules) {
  DependencyGraph g;
  DATALOG_RETURN_IF_ERROR(build_graph(rules, &g));
  return check_negation(g, components(g));
}

Status stratify(const std::vector<ast::Rule>& rules,
                std::vector<std::vector<std::string>>* strata) {
  strata->clear();
  DependencyGraph g;
  DATALOG_RETURN_IF_ERROR(build_graph(rules, &g));
  const auto comps = components(g);
  DATALOG_RETURN_IF_ERROR(check_negation(g, comps));
  for (const auto& comp : comps) {
    std::vector<std::string> names;
    for (std::size_t v : comp) names.push_back(g.names[v]);
    strata->push_back(std::move(names));
  }
  return Status::OK();
}

Status check_rule_calls(const ast::Query& query, const std::vector<ast::Rule>& rules) {
  std::map<std::string, std::size_t, std::less<>> arity;  // of the first definition
  for (const auto& r : rules) arity.emplace(r.name, r.head.size());

  std::deque<std::string> reached;
  std::map<std::string, bool, std::less<>> seen;
  const auto reach = [&](const std::string& name) {
    if (seen.emplace(name, true).second) reached.push_back(name);
  };

  std::vector<Call> calls;
  collect_calls(query.where, &calls);
  for (const Call& c : calls) {
    const auto it = arity.find(c.call->name);
    if (it == arity.end()) {
      return parse_error(c.call->pos, fmt::format("unknown rule '{}' {}", c.call->name,
                                                  unknown_rule_hint(c.call->name)));
    }
    if (it->second != c.call->args.size()) {
      return parse_error(c.call->pos,
                         fmt::format("rule '{}' takes {} but is called with {}", c.call->name,
                                     arguments(it->second), c.call->args.size()));
    }
    reach(c.call->name);
  }
  while (!reached.empty()) {
    const std::string name = reached.front();
    reached.pop_front();
    for (const auto& r : rules) {
      if (r.name != name) continue;
      std::vector<Call> inner;
      collect_calls(r.body, &inner);
      for (const Call& c : inner) {
        const auto it = arity.find(c.call->name);
        if (it == arity.end()) {
          return invalid(fmt::format("rule '{}' calls unknown rule '{}' {}", name, c.call->name,
                                     unknown_rule_hint(c.call->name)));
        }
        if (it->second != c.call->args.size()) {
          return invalid(fmt::format("rule '{}' calls '{}' with {}, but '{}' takes {}", name,
                                     c.call->name, arguments(c.call->args.size()), c.call->name,
                                     arguments(it->second)));
        }
        reach(c.call->name);
      }
    }
  }
  return Status::OK();
}

}  // namespace datalog
