// The top level of the parser: scripts, commands, transact/retract facts and rules.
#include "engine/parser.h"

#include <fmt/format.h>

#include "engine/function_names.h"
#include "engine/parse_error.h"
#include "engine/parser_internal.h"
#include "engine/time_text.h"

namespace datalog {

namespace parser_detail {

namespace {

constexpr std::size_t kDescribeBytes = 60;

using edn::Node;
using edn::NodeKind;

}  // namespace

std::optional<Value> constant_of(const Node& node) {
  switch (node.kind) {
    case NodeKind::String:
      return Value::string(node.text);
    case NodeKind::Integer:
      return Value::integer(node.integer);
    case NodeKind::Float:
      return Value::floating(node.floating);
    case NodeKind::Boolean:
      return Value::boolean(node.boolean);
    case NodeKind::Nil:
      return Value::nil();
    case NodeKind::Keyword:
      return Value::keyword(node.text);
    case NodeKind::Uuid:
      return Value::uuid(node.uuid);
    case NodeKind::Instant:
      return Value::instant(node.integer);
    default:
      return std::nullopt;
  }
}

ast::Variable variable_of(const Node& node) {
  ast::Variable v;
  v.name = node.text;
  v.pos = node.pos;
  return v;
}

bool is_pseudo_attribute(std::string_view keyword) {
  return keyword == ":db/valid-from" || keyword == ":db/valid-to" || keyword == ":db/tx-count" ||
         keyword == ":db/tx-id" || keyword == ":db/valid-at";
}

std::string FormParser::describe(const Node& node) const {
  std::string_view text = source(node);
  if (text.size() <= kDescribeBytes) return std::string(text);
  std::size_t cut = kDescribeBytes - 3;
  // Never split a UTF-8 character: back up over continuation bytes.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

Status FormParser::error(const Node& at, std::string_view message) const {
  return parse_error(at.pos, message);
}

Status FormParser::command(const Node& form, ast::Command* out) const {
  if (form.kind != NodeKind::List || form.items.empty()) {
    return error(form, "Expected a list starting with a command symbol");
  }
  const Node& head = form.items[0];
  if (head.kind != NodeKind::Symbol && head.kind != NodeKind::Keyword) {
    return error(head, "Expected command symbol");
  }
  if (head.text == "transact") {
    ast::Transact t;
    DATALOG_RETURN_IF_ERROR(transact(form, &t));
    *out = std::move(t);
  } else if (head.text == "retract") {
    ast::Retract r;
    DATALOG_RETURN_IF_ERROR(retract(form, &r));
    *out = std::move(r);
  } else if (head.text == "query") {
    ast::QueryCommand q;
    DATALOG_RETURN_IF_ERROR(query(form, &q));
    *out = std::move(q);
  } else if (head.text == "rule") {
    ast::Rule r;
    DATALOG_RETURN_IF_ERROR(rule(form, &r));
    *out = std::move(r);
  } else {
    return error(head, fmt::format("Unknown command: {}", head.text));
  }
  return Status::OK();
}

// (transact [fact ...]) or (transact {:valid-from "ISO" :valid-to "ISO"} [fact ...]) (§4).
// Elements after the facts vector are ignored, as Minigraf does.
Status FormParser::transact(const Node& form, ast::Transact* out) const {
  out->pos = form.pos;
  if (form.items.size() < 2) return error(form, "Transact requires a vector of facts");
  const Node* facts = &form.items[1];
  if (facts->kind == NodeKind::Map) {
    DATALOG_RETURN_IF_ERROR(valid_time_map(*facts, &out->valid_from, &out->valid_to));
    if (form.items.size() < 3) {
      return error(form, "Transact with options requires a facts vector after the map");
    }
    facts = &form.items[2];
  }
  if (facts->kind != NodeKind::Vector) {
    return error(*facts, "Transact argument must be a vector of facts");
  }
  out->facts.reserve(out->facts.size() + facts->items.size());
  int maps = 0;
  for (const Node& f : facts->items) {
    if (f.kind == NodeKind::Map) {
      DATALOG_RETURN_IF_ERROR(entity_map(f, maps++, out));
      continue;
    }
    if (f.kind != NodeKind::Vector) {
      return error(f, "Each fact must be a vector [e a v] or [e a v {opts}], or an entity map "
                      "{:db/id e :attr v ...}");
    }
    if (f.items.size() < 3) {
      return error(
          f, fmt::format("Fact must have at least 3 elements (E A V), got {}", f.items.size()));
    }
    ast::Fact fact;
    if (f.items.size() >= 4) {  // elements after the 4th are ignored (Minigraf)
      const Node& opts = f.items[3];
      if (opts.kind != NodeKind::Map) {
        return error(opts, fmt::format("Optional 4th element of a fact must be a map "
                                       "{{:valid-from ... :valid-to ...}}, got {}",
                                       describe(opts)));
      }
      DATALOG_RETURN_IF_ERROR(valid_time_map(opts, &fact.valid_from, &fact.valid_to));
    }
    if (!fact.valid_from) fact.valid_from = out->valid_from;
    if (!fact.valid_to) fact.valid_to = out->valid_to;
    DATALOG_RETURN_IF_ERROR(fact_parts(f, &fact));
    out->facts.push_back(std::move(fact));
  }
  return Status::OK();
}

// An entity map {:db/id e :attr v ...} (our extension, as in Datomic): one fact per attribute,
// all about one entity, valid over the transaction's valid time. Without :db/id the entity is
// the one an identity attribute's value finds (upsert), else a new one.
Status FormParser::entity_map(const Node& map, int index, ast::Transact* out) const {
  Value entity = Value::nil();
  for (std::size_t k = 0; k + 1 < map.items.size(); k += 2) {
    const Node& key = map.items[k];
    const Node& val = map.items[k + 1];
    if (!key.is_keyword(":db/id")) continue;
    if (val.kind != NodeKind::Keyword && val.kind != NodeKind::Uuid && val.kind != NodeKind::Integer) {
      return error(val, fmt::format("Invalid entity: :db/id must be a keyword, UUID or integer, got {}",
                                    describe(val)));
    }
    entity = *constant_of(val);
  }
  for (std::size_t k = 0; k + 1 < map.items.size(); k += 2) {
    const Node& key = map.items[k];
    const Node& val = map.items[k + 1];
    if (key.is_keyword(":db/id")) continue;
    if (key.kind != NodeKind::Keyword) return error(key, "Attribute must be a keyword");
    auto value = constant_of(val);
    if (!value) {
      return error(val, fmt::format("Invalid value: Cannot convert {} to Value", describe(val)));
    }
    ast::Fact fact;
    fact.e = entity;
    fact.a = Value::keyword(key.text);
    fact.v = *std::move(value);
    fact.valid_from = out->valid_from;
    fact.valid_to = out->valid_to;
    fact.pos = key.pos;
    fact.entity_map = index;
    out->facts.push_back(std::move(fact));
  }
  return Status::OK();
}

// (retract [[e a v] ...]) (§5): exactly three elements, no valid time.
Status FormParser::retract(const Node& form, ast::Retract* out) const {
  out->pos = form.pos;
  if (form.items.size() < 2) return error(form, "Retract requires a vector of facts");
  const Node& facts = form.items[1];
  if (facts.kind != NodeKind::Vector) return error(facts, "Retract argument must be a vector");
  out->facts.reserve(out->facts.size() + facts.items.size());
  for (const Node& f : facts.items) {
    if (f.kind != NodeKind::Vector) return error(f, "Each fact must be a vector [e a v]");
    if (f.items.size() != 3) {
      return error(
          f, fmt::format("Pattern must have exactly 3 elements (E A V), got {}", f.items.size()));
    }
    ast::Fact fact;
    DATALOG_RETURN_IF_ERROR(fact_parts(f, &fact));
    out->facts.push_back(std::move(fact));
  }
  return Status::OK();
}

// The entity, attribute and value of a fact vector of at least three elements. Minigraf checks
// these when it runs the command; the messages are its run-time ones.
Status FormParser::fact_parts(const Node& f, ast::Fact* out) const {
  out->pos = f.pos;
  const Node& e = f.items[0];
  const Node& a = f.items[1];
  const Node& v = f.items[2];
  // Entities: a keyword or #uuid names one; an integer is an entity id (header rule 4).
  if (e.kind != NodeKind::Keyword && e.kind != NodeKind::Uuid && e.kind != NodeKind::Integer) {
    return error(e,
                 fmt::format("Invalid entity: Expected keyword, UUID or integer for entity, got {}",
                             describe(e)));
  }
  out->e = *constant_of(e);
  if (a.kind != NodeKind::Keyword) return error(a, "Attribute must be a keyword");
  out->a = Value::keyword(a.text);
  auto value = constant_of(v);
  if (!value) {
    if (v.is_variable()) {
      return error(
          v, fmt::format("Invalid value: Cannot convert unbound variable {} to value", v.text));
    }
    return error(v, fmt::format("Invalid value: Cannot convert {} to Value", describe(v)));
  }
  out->v = *std::move(value);
  return Status::OK();
}

// {:valid-from "ISO" :valid-to "ISO"}; #inst values are accepted too (our extension).
Status FormParser::valid_time_map(const Node& map, std::optional<std::int64_t>* from,
                                  std::optional<std::int64_t>* to) const {
  for (std::size_t k = 0; k + 1 < map.items.size(); k += 2) {
    const Node& key = map.items[k];
    const Node& val = map.items[k + 1];
    std::optional<std::int64_t>* slot = nullptr;
    if (key.is_keyword(":valid-from")) {
      slot = from;
    } else if (key.is_keyword(":valid-to")) {
      slot = to;
    } else {
      return error(
          key, fmt::format("Unknown key in valid-time map: {}; expected :valid-from or :valid-to",
                           describe(key)));
    }
    if (val.kind == NodeKind::Instant) {
      *slot = val.integer;
      continue;
    }
    if (val.kind != NodeKind::String) {
      return error(val,
                   fmt::format("{} must be an ISO 8601 string, got {}", key.text, describe(val)));
    }
    const TimeParse time = parse_instant(val.text);
    if (!time.ms) return error(val, time.error);
    *slot = *time.ms;
  }
  return Status::OK();
}

// (rule [(name arg ...) body-clause ...]) (§9): any arity, arguments of any type.
Status FormParser::rule(const Node& form, ast::Rule* out) const {
  out->pos = form.pos;
  out->source = std::string(source(form));
  if (form.items.size() < 2) return error(form, "Rule must have a body");
  const Node& vec = form.items[1];
  if (vec.kind != NodeKind::Vector) return error(vec, "Rule body must be a vector");
  if (vec.items.empty()) return error(vec, "Rule body cannot be empty");
  const Node& head = vec.items[0];
  if (head.kind != NodeKind::List) {
    return error(head, "Rule head must be a list: (predicate ?args)");
  }
  if (head.items.empty()) return error(head, "Rule head cannot be empty");
  const Node& name = head.items[0];
  if (name.kind != NodeKind::Symbol || name.is_term_variable() || name.is_symbol("$") ||
      name.is_symbol("...")) {
    return error(name, "Rule head must start with a symbol (predicate name)");
  }
  if (is_clause_form(name.text) || is_builtin_function(name.text)) {
    return error(name, fmt::format("Rule name '{}' is reserved: it is a built-in form or function",
                                   name.text));
  }
  out->name = name.text;
  for (std::size_t k = 1; k < head.items.size(); ++k) {
    ast::Term t;
    DATALOG_RETURN_IF_ERROR(term(head.items[k], TermRole::RuleHead, &t));
    out->head.push_back(std::move(t));
  }
  for (std::size_t k = 1; k < vec.items.size(); ++k) {
    ast::Clause c;
    DATALOG_RETURN_IF_ERROR(clause(vec.items[k], Place::RuleBody, &c));
    out->body.push_back(std::move(c));
  }
  if (out->body.empty()) {
    return error(vec, "Rule must have at least one pattern or rule invocation in body");
  }
  return Status::OK();
}

}  // namespace parser_detail

Status parse_script(std::string_view text, std::vector<ast::Command>* out,
                    const std::function<bool()>& interrupted) {
  out->clear();
  std::vector<edn::Node> forms;
  DATALOG_RETURN_IF_ERROR(edn::read_forms(text, &forms, interrupted));
  const parser_detail::FormParser parser(text);
  for (const edn::Node& form : forms) {
    ast::Command command;
    Status st = parser.command(form, &command);
    if (!st.ok()) {
      out->clear();
      return st;
    }
    out->push_back(std::move(command));
  }
  return Status::OK();
}

}  // namespace datalog
