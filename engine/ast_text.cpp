#include "engine/ast_text.h"

#include <fmt/format.h>

#include <charconv>

#include "engine/time_text.h"

namespace datalog {

namespace {

std::string format_float(double d) {
  char buf[512];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed);
  std::string s = ec == std::errc() ? std::string(buf, end) : fmt::format("{}", d);
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

std::string format_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out + "\"";
}

std::string format_value(const Value& v) {
  switch (v.kind()) {
    case ValueKind::String:
      return format_string(v.as_string());
    case ValueKind::Float:
      return format_float(v.as_float());
    default:
      return v.to_edn();
  }
}

std::string format_var(const ast::Variable& v) { return v.name; }

std::string format_vars(const std::vector<ast::Variable>& vars) {
  std::string out;
  for (const auto& v : vars) out += (out.empty() ? "" : " ") + v.name;
  return out;
}

std::string format_expr(const ast::Expr& e);

std::string format_arg(const ast::ExprArg& arg) {
  if (const auto* v = std::get_if<ast::Variable>(&arg)) return format_var(*v);
  if (const auto* c = std::get_if<Value>(&arg)) return format_value(*c);
  if (const auto* s = std::get_if<ast::Slot>(&arg)) return "$" + s->name;
  const auto& nested = std::get<std::shared_ptr<ast::Expr>>(arg);
  return nested ? format_expr(*nested) : "()";
}

std::string format_expr(const ast::Expr& e) {
  std::string out = "(" + e.op;
  for (const auto& a : e.args) out += " " + format_arg(a);
  return out + ")";
}

std::string format_clauses(const std::vector<ast::Clause>& clauses) {
  std::string out;
  for (const auto& c : clauses) out += (out.empty() ? "" : " ") + format_clause(c);
  return out;
}

std::string format_time(std::int64_t ms) { return "#inst \"" + format_instant(ms) + "\""; }

std::string format_find(const ast::FindElement& f) {
  switch (f.kind) {
    case ast::FindElement::Kind::Variable:
      return f.var.name;
    case ast::FindElement::Kind::Aggregate:
      return "(" + f.function + " " + f.var.name + ")";
    case ast::FindElement::Kind::Pull:
      return "(pull " + f.var.name + " " + f.pull_pattern + ")";
    case ast::FindElement::Kind::Window:
      break;
  }
  std::string out = "(" + f.function + (f.has_var ? " " + f.var.name : "") + " :over (";
  if (f.over) {
    if (f.over->partition_by) out += ":partition-by " + f.over->partition_by->name + " ";
    out += ":order-by " + f.over->order_by.name;
    out += f.over->order == ast::Order::Desc ? " :desc" : " :asc";
  }
  return out + "))";
}

std::string format_in(const ast::InBinding& b) {
  switch (b.kind) {
    case ast::InBinding::Kind::Scalar:
      return format_vars(b.vars);
    case ast::InBinding::Kind::Tuple:
      return "[" + format_vars(b.vars) + "]";
    case ast::InBinding::Kind::Collection:
      return "[" + format_vars(b.vars) + " ...]";
    case ast::InBinding::Kind::Relation:
      return "[[" + format_vars(b.vars) + "]]";
  }
  return "?";
}

std::string format_valid_time(const std::optional<std::int64_t>& from,
                              const std::optional<std::int64_t>& to) {
  std::string out;
  if (from) out += ":valid-from " + format_time(*from);
  if (to) out += std::string(out.empty() ? "" : " ") + ":valid-to " + format_time(*to);
  return "{" + out + "}";
}

std::string format_fact(const ast::Fact& f, bool with_time) {
  std::string out = "[" + format_value(f.e) + " " + format_value(f.a) + " " + format_value(f.v);
  if (with_time && (f.valid_from || f.valid_to)) {
    out += " " + format_valid_time(f.valid_from, f.valid_to);
  }
  return out + "]";
}

}  // namespace

std::string format_term(const ast::Term& term) {
  if (const auto* v = std::get_if<ast::Variable>(&term)) return format_var(*v);
  if (const auto* c = std::get_if<Value>(&term)) return format_value(*c);
  return "$" + std::get<ast::Slot>(term).name;
}

std::string format_clause(const ast::Clause& clause) {
  return std::visit(
      [](const auto& node) -> std::string {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, ast::Pattern>) {
          return "[" + format_term(node.e) + " " + format_term(node.a) + " " + format_term(node.v) +
                 "]";
        } else if constexpr (std::is_same_v<T, ast::ExprClause>) {
          return "[" + format_expr(node.expr) + (node.out ? " " + node.out->name : "") + "]";
        } else if constexpr (std::is_same_v<T, ast::RuleCall>) {
          std::string out = "(" + node.name;
          for (const auto& a : node.args) out += " " + format_term(a);
          return out + ")";
        } else if constexpr (std::is_same_v<T, ast::Not>) {
          return node.is_join ? "(not-join [" + format_vars(node.join_vars) + "] " +
                                    format_clauses(node.body) + ")"
                              : "(not " + format_clauses(node.body) + ")";
        } else {
          std::string out = node.is_join ? "(or-join [" + format_vars(node.join_vars) + "]" : "(or";
          for (const auto& branch : node.branches) {
            out += " ";
            out += branch.size() == 1 ? format_clause(branch[0])
                                      : "(and " + format_clauses(branch) + ")";
          }
          return out + ")";
        }
      },
      clause.node);
}

std::string format_query(const ast::Query& q) {
  std::string out = "[:find";
  for (const auto& f : q.find) out += " " + format_find(f);
  if (!q.with.empty()) out += " :with " + format_vars(q.with);
  if (!q.in.empty()) {
    out += " :in";
    for (const auto& b : q.in) out += " " + format_in(b);
  }
  if (!q.where.empty()) out += " :where " + format_clauses(q.where);
  if (q.as_of) {
    switch (q.as_of->kind) {
      case ast::AsOf::Kind::Counter:
        out += fmt::format(" :as-of {}", q.as_of->value);
        break;
      case ast::AsOf::Kind::Time:
        out += " :as-of " + format_time(q.as_of->value);
        break;
      case ast::AsOf::Kind::Slot:
        out += " :as-of $" + q.as_of->slot;
        break;
    }
  }
  if (q.valid_at) {
    switch (q.valid_at->kind) {
      case ast::ValidAt::Kind::Time:
        out += " :valid-at " + format_time(q.valid_at->ms);
        break;
      case ast::ValidAt::Kind::AnyValidTime:
        out += " :any-valid-time";
        break;
      case ast::ValidAt::Kind::Slot:
        out += " :valid-at $" + q.valid_at->slot;
        break;
    }
  }
  if (q.max_results) out += fmt::format(" :max-results {}", *q.max_results);
  if (q.max_derived_facts) out += fmt::format(" :max-derived-facts {}", *q.max_derived_facts);
  return out + "]";
}

std::string format_command(const ast::Command& command) {
  return std::visit(
      [](const auto& c) -> std::string {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, ast::Transact>) {
          std::string out = "(transact ";
          if (c.valid_from || c.valid_to) out += format_valid_time(c.valid_from, c.valid_to) + " ";
          out += "[";
          for (std::size_t i = 0; i < c.facts.size(); ++i) {
            if (i) out += " ";
            if (c.facts[i].entity_map < 0) {
              out += format_fact(c.facts[i], true);
              continue;
            }
            // The facts of one entity map {:db/id e :attr v ...} are adjacent: print the map.
            const int map = c.facts[i].entity_map;
            out += "{";
            if (!c.facts[i].e.is(ValueKind::Nil)) out += ":db/id " + format_value(c.facts[i].e) + " ";
            for (std::size_t k = i; k < c.facts.size() && c.facts[k].entity_map == map; ++k) {
              out += (k > i ? " " : "") + format_value(c.facts[k].a) + " " + format_value(c.facts[k].v);
              i = k;
            }
            out += "}";
          }
          return out + "])";
        } else if constexpr (std::is_same_v<T, ast::Retract>) {
          std::string out = "(retract [";
          for (std::size_t i = 0; i < c.facts.size(); ++i) {
            out += (i ? " " : "") + format_fact(c.facts[i], false);
          }
          return out + "])";
        } else if constexpr (std::is_same_v<T, ast::QueryCommand>) {
          return "(query " + format_query(c.query) + ")";
        } else {
          std::string out = "(rule [(" + c.name;
          for (const auto& t : c.head) out += " " + format_term(t);
          return out + ") " + format_clauses(c.body) + "])";
        }
      },
      command);
}

}  // namespace datalog
