// :find elements (§6, §14): ?var, (agg ?var), windows (f ?var :over (...)) / (rank :over (...)),
// and (pull ?e [...]) (our extension).
//
// As in Minigraf, a list holding the keyword :over anywhere is a window; function names are
// resolved at run time (user aggregates), except the few Minigraf refuses when it parses.
#include <fmt/format.h>

#include "engine/functions/aggregates.h"
#include "engine/functions/window.h"
#include "engine/parser_internal.h"
#include "engine/pull_pattern.h"

namespace datalog::parser_detail {

namespace {

using edn::Node;
using edn::NodeKind;

bool has_over(const Node& list) {
  for (const Node& n : list.items) {
    if (n.is_keyword(":over")) return true;
  }
  return false;
}

// rank, row-number, dense-rank, lag, lead: window functions with no aggregate form. avg is both
// (header rule 3), so only names the aggregates do not know count.
bool is_window_only(std::string_view name) {
  return functions::find_window_function(name).has_value() && !functions::is_known_aggregate(name);
}

// rank, row-number and dense-rank are written without a ?var; every other window function,
// user aggregates included, takes one.
bool window_takes_argument(std::string_view name) {
  const auto fn = functions::find_window_function(name);
  return !fn || functions::window_function_takes_argument(*fn);
}

}  // namespace

Status FormParser::find_element(const Node& node, ast::FindElement* out) const {
  out->pos = node.pos;
  if (node.is_variable()) {
    out->kind = ast::FindElement::Kind::Variable;
    out->var = variable_of(node);
    out->header = node.text;
    return Status::OK();
  }
  if (node.kind == NodeKind::List) {
    if (has_over(node)) return window(node, out);
    if (!node.items.empty() && node.items[0].is_symbol("pull")) return pull(node, out);
    return aggregate(node, out);
  }
  return error(node,
               fmt::format("Expected variable or aggregate expression in :find clause, got {}",
                           describe(node)));
}

// (name ?var): exactly two elements (§14).
Status FormParser::aggregate(const Node& list, ast::FindElement* out) const {
  const std::vector<Node>& items = list.items;
  if (items.size() != 2) {
    return error(
        list, fmt::format("Aggregate expression must have exactly 2 elements (func ?var), got {}",
                          items.size()));
  }
  const Node& fn = items[0];
  if (fn.kind != NodeKind::Symbol) {
    return error(fn, fmt::format("Aggregate function name must be a symbol, got {}", describe(fn)));
  }
  if (is_window_only(fn.text)) {
    return error(
        fn, fmt::format("'{}' is a window function and requires an ':over (...)' clause", fn.text));
  }
  if (!items[1].is_variable()) {
    return error(items[1], "Aggregate argument must be a variable (starting with ?)");
  }
  out->kind = ast::FindElement::Kind::Aggregate;
  out->function = fn.text;
  out->var = variable_of(items[1]);
  out->header = fmt::format("({} {})", fn.text, items[1].text);
  return Status::OK();
}

// (f ?var :over (:partition-by ?p :order-by ?o :asc|:desc)) or (rank :over (...)).
Status FormParser::window(const Node& list, ast::FindElement* out) const {
  const std::vector<Node>& items = list.items;
  if (items.empty() || items[0].kind != NodeKind::Symbol) {
    return error(items.empty() ? list : items[0], "window function name must be a symbol");
  }
  const std::string& name = items[0].text;
  if (name == "count-distinct" || name == "sum-distinct") {
    return error(
        items[0],
        fmt::format("'{}' is not window-compatible and cannot be used with ':over'", name));
  }
  std::size_t over_at = 1;
  if (!window_takes_argument(name)) {
    if (items.size() < 2 || !items[1].is_keyword(":over")) {
      return error(list, fmt::format("'{}' requires ':over' immediately after the function name "
                                     "(no variable argument)",
                                     name));
    }
    out->has_var = false;
  } else {
    if (items.size() < 2 || !items[1].is_variable()) {
      return error(
          list,
          fmt::format("'{}' requires a variable argument (starting with ?) before ':over'", name));
    }
    if (items.size() < 3 || !items[2].is_keyword(":over")) {
      return error(list, fmt::format("'{}' requires ':over' after the variable argument", name));
    }
    out->var = variable_of(items[1]);
    over_at = 2;
  }
  if (over_at + 2 != items.size()) {
    return error(list, "unexpected tokens after ':over' clause in window expression");
  }
  const Node& over = items[over_at + 1];
  if (over.kind != NodeKind::List) {
    return error(over, "':over' must be followed by a list, e.g., (:order-by ?var)");
  }
  ast::WindowSpec spec;
  bool has_order_by = false;
  for (std::size_t k = 0; k < over.items.size(); ++k) {
    const Node& option = over.items[k];
    if (option.kind != NodeKind::Keyword) {
      return error(option,
                   fmt::format("unexpected element in ':over' clause: {}", describe(option)));
    }
    if (option.text == ":partition-by" || option.text == ":order-by") {
      const bool partition = option.text == ":partition-by";
      if (k + 1 >= over.items.size() || !over.items[k + 1].is_variable()) {
        return error(option, partition ? "':partition-by' requires a variable (starting with ?)"
                                       : "':order-by' requires a variable (starting with ?)");
      }
      ++k;
      if (partition) {
        spec.partition_by = variable_of(over.items[k]);
      } else {
        spec.order_by = variable_of(over.items[k]);
        has_order_by = true;
      }
    } else if (option.text == ":asc") {
      spec.order = ast::Order::Asc;
    } else if (option.text == ":desc") {
      spec.order = ast::Order::Desc;
    } else {
      return error(option, fmt::format("unknown option in ':over' clause: '{}'", option.text));
    }
  }
  if (!has_order_by) return error(over, "':order-by' is required in the ':over' clause");
  out->kind = ast::FindElement::Kind::Window;
  out->function = name;
  out->over = std::move(spec);
  out->header = out->has_var ? fmt::format("({} {} :over ...)", name, out->var.name)
                             : fmt::format("({} :over ...)", name);
  return Status::OK();
}

// (pull ?e [pattern]): the pattern is parsed here, once, and kept with its source text.
Status FormParser::pull(const Node& list, ast::FindElement* out) const {
  const std::vector<Node>& items = list.items;
  if (items.size() != 3 || !items[1].is_variable() || items[2].kind != NodeKind::Vector) {
    return error(list, fmt::format("pull must be written (pull ?e [attribute ...]), got {}",
                                   describe(list)));
  }
  auto pattern = std::make_shared<pull::Pattern>();
  DATALOG_RETURN_IF_ERROR(pull::parse_pattern(items[2], text_, pattern.get()));
  out->pull = std::move(pattern);
  out->kind = ast::FindElement::Kind::Pull;
  out->function = "pull";
  out->var = variable_of(items[1]);
  out->pull_pattern = std::string(source(items[2]));
  out->header = fmt::format("(pull {} {})", items[1].text, out->pull_pattern);
  return Status::OK();
}

}  // namespace datalog::parser_detail
