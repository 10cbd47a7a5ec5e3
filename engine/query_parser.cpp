// The query vector (§6): sections introduced by keywords, in any order.
//
// As in Minigraf, a keyword either takes its value(s) at once (:as-of, :valid-at,
// :any-valid-time, :max-*, :with, and our :in) or opens a section (:find, :where) whose elements
// follow until the next keyword. An unknown keyword opens an unknown section, so its first
// element fails with "Unexpected element in query: ..." (`:limit 10` fails that way).
#include <fmt/format.h>

#include "engine/parser_internal.h"
#include "engine/time_text.h"

namespace datalog::parser_detail {

namespace {

using edn::Node;
using edn::NodeKind;

// :max-results / :max-derived-facts N (§17).
Status read_limit(const FormParser& p, const Node& key, const Node* value,
                  std::optional<std::int64_t>* out) {
  if (out->has_value()) return p.error(key, fmt::format("duplicate {}", key.text));
  if (value == nullptr) return p.error(key, fmt::format("{} requires a value", key.text));
  if (value->kind != NodeKind::Integer) {
    return p.error(*value, fmt::format("{} must be a positive integer", key.text));
  }
  if (value->integer < 1) return p.error(*value, fmt::format("{} must be >= 1", key.text));
  *out = value->integer;
  return Status::OK();
}

Status read_as_of(const FormParser& p, const Node& key, const Node* value, ast::AsOf* out) {
  if (value == nullptr) return p.error(key, ":as-of requires a value");
  switch (value->kind) {
    case NodeKind::Integer:
      if (value->integer < 0) {
        return p.error(*value,
                       fmt::format(":as-of counter must be non-negative, got {}", value->integer));
      }
      out->kind = ast::AsOf::Kind::Counter;
      out->value = value->integer;
      return Status::OK();
    case NodeKind::String: {
      const TimeParse time = parse_instant(value->text);
      if (!time.ms) return p.error(*value, time.error);
      out->kind = ast::AsOf::Kind::Time;
      out->value = *time.ms;
      return Status::OK();
    }
    case NodeKind::Instant:
      out->kind = ast::AsOf::Kind::Time;
      out->value = value->integer;
      return Status::OK();
    case NodeKind::Slot:
      out->kind = ast::AsOf::Kind::Slot;
      out->slot = value->text;
      return Status::OK();
    default:
      return p.error(*value,
                     fmt::format(":as-of must be an integer (counter) or ISO 8601 string, got {}",
                                 p.describe(*value)));
  }
}

Status read_valid_at(const FormParser& p, const Node& key, const Node* value, ast::ValidAt* out) {
  if (value == nullptr) return p.error(key, ":valid-at requires a value");
  switch (value->kind) {
    case NodeKind::String: {
      const TimeParse time = parse_instant(value->text);
      if (!time.ms) return p.error(*value, time.error);
      out->kind = ast::ValidAt::Kind::Time;
      out->ms = *time.ms;
      return Status::OK();
    }
    case NodeKind::Instant:
      out->kind = ast::ValidAt::Kind::Time;
      out->ms = value->integer;
      return Status::OK();
    case NodeKind::Slot:
      out->kind = ast::ValidAt::Kind::Slot;
      out->slot = value->text;
      return Status::OK();
    default:
      if (value->is_keyword(":any-valid-time")) {
        out->kind = ast::ValidAt::Kind::AnyValidTime;
        return Status::OK();
      }
      return p.error(*value,
                     fmt::format(":valid-at must be an ISO 8601 string or :any-valid-time, got {}",
                                 p.describe(*value)));
  }
}

}  // namespace

Status FormParser::query(const Node& form, ast::QueryCommand* out) const {
  out->source = std::string(source(form));
  ast::Query& q = out->query;
  q.pos = form.pos;
  if (form.items.size() < 2) return error(form, "Query requires a map argument");
  const Node& vec = form.items[1];
  if (vec.kind != NodeKind::Vector) return error(vec, "Query argument must be a vector");

  const std::vector<Node>& items = vec.items;
  std::string section;  // the keyword of the open section; empty before the first one
  std::size_t i = 0;
  while (i < items.size()) {
    const Node& item = items[i];
    const Node* next = i + 1 < items.size() ? &items[i + 1] : nullptr;
    if (item.kind == NodeKind::Keyword) {
      const std::string& key = item.text;
      if (key == ":as-of") {
        ast::AsOf as_of;
        DATALOG_RETURN_IF_ERROR(read_as_of(*this, item, next, &as_of));
        q.as_of = as_of;
        i += 2;
      } else if (key == ":valid-at") {
        ast::ValidAt valid_at;
        DATALOG_RETURN_IF_ERROR(read_valid_at(*this, item, next, &valid_at));
        q.valid_at = valid_at;
        i += 2;
      } else if (key == ":any-valid-time") {
        ast::ValidAt any;
        any.kind = ast::ValidAt::Kind::AnyValidTime;
        q.valid_at = any;
        i += 1;
      } else if (key == ":max-derived-facts") {
        DATALOG_RETURN_IF_ERROR(read_limit(*this, item, next, &q.max_derived_facts));
        i += 2;
      } else if (key == ":max-results") {
        DATALOG_RETURN_IF_ERROR(read_limit(*this, item, next, &q.max_results));
        i += 2;
      } else if (key == ":with") {
        // Variables up to the next keyword; the open section stays open after them.
        for (++i; i < items.size() && items[i].kind != NodeKind::Keyword; ++i) {
          if (!items[i].is_variable()) {
            return error(items[i], fmt::format("':with' clause accepts only variables, got {}",
                                               describe(items[i])));
          }
          q.with.push_back(variable_of(items[i]));
        }
      } else if (key == ":in") {
        for (++i; i < items.size() && items[i].kind != NodeKind::Keyword; ++i) {
          if (items[i].is_symbol("$")) continue;  // Datomic's database source
          ast::InBinding binding;
          DATALOG_RETURN_IF_ERROR(in_binding(items[i], &binding));
          q.in.push_back(std::move(binding));
        }
      } else {
        section = key;
        i += 1;
      }
      continue;
    }
    if (section == ":find") {
      ast::FindElement element;
      DATALOG_RETURN_IF_ERROR(find_element(item, &element));
      q.find.push_back(std::move(element));
    } else if (section == ":where") {
      ast::Clause c;
      DATALOG_RETURN_IF_ERROR(clause(item, Place::Where, &c));
      q.where.push_back(std::move(c));
    } else {
      return error(item, fmt::format("Unexpected element in query: {}", describe(item)));
    }
    ++i;
  }
  return Status::OK();
}

// :in bindings (header rule 3): ?x, [?a ?b], [?x ...], [[?a ?b]]. `_` ignores a position.
Status FormParser::in_binding(const Node& node, ast::InBinding* out) const {
  out->pos = node.pos;
  const auto all_variables = [](const std::vector<Node>& nodes) {
    if (nodes.empty()) return false;
    for (const Node& n : nodes) {
      if (!n.is_term_variable()) return false;
    }
    return true;
  };
  const auto add_all = [out](const std::vector<Node>& nodes) {
    for (const Node& n : nodes) out->vars.push_back(variable_of(n));
  };
  if (node.is_term_variable()) {
    out->kind = ast::InBinding::Kind::Scalar;
    out->vars.push_back(variable_of(node));
    return Status::OK();
  }
  if (node.kind == NodeKind::Vector) {
    const std::vector<Node>& items = node.items;
    if (items.size() == 1 && items[0].kind == NodeKind::Vector && all_variables(items[0].items)) {
      out->kind = ast::InBinding::Kind::Relation;
      add_all(items[0].items);
      return Status::OK();
    }
    if (items.size() == 2 && items[0].is_term_variable() && items[1].is_symbol("...")) {
      out->kind = ast::InBinding::Kind::Collection;
      out->vars.push_back(variable_of(items[0]));
      return Status::OK();
    }
    if (all_variables(items)) {
      out->kind = ast::InBinding::Kind::Tuple;
      add_all(items);
      return Status::OK();
    }
  }
  return error(
      node, fmt::format(":in accepts ?x, [?a ?b], [?x ...] or [[?a ?b]], got {}", describe(node)));
}

}  // namespace datalog::parser_detail
