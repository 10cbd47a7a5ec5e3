#include "extension/query_arguments.h"

#include <fmt/format.h>

#include "engine/ast_walk.h"
#include "engine/edn_reader.h"
#include "engine/analyzer.h"
#include "engine/script_runner.h"
#include "engine/time_text.h"
#include "extension/sql_values.h"

namespace datalog::ext {

namespace {

std::optional<Value> edn_scalar(const edn::Node& n) {
  switch (n.kind) {
    case edn::NodeKind::Keyword: return Value::keyword(n.text);
    case edn::NodeKind::String: return Value::string(n.text);
    case edn::NodeKind::Integer: return Value::integer(n.integer);
    case edn::NodeKind::Float: return Value::floating(n.floating);
    case edn::NodeKind::Boolean: return Value::boolean(n.boolean);
    case edn::NodeKind::Nil: return Value::nil();
    case edn::NodeKind::Uuid: return Value::uuid(n.uuid);
    case edn::NodeKind::Instant: return Value::instant(n.integer);
    default: return std::nullopt;
  }
}

Status edn_argument(sqlite3_value* arg, const std::string& what, edn::Node* out) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(arg));
  std::vector<edn::Node> forms;
  const Status st = edn::read_forms(p ? p : "", &forms);
  if (!st.ok() || forms.size() != 1 || forms[0].kind != edn::NodeKind::Vector) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("{} takes an EDN vector as text, such as '[1 2 3]'", what));
  }
  *out = std::move(forms[0]);
  return Status::OK();
}

Status row_of(const edn::Node& vec, std::size_t width, const std::string& what, eval::Row* row) {
  if (vec.kind != edn::NodeKind::Vector || vec.items.size() != width) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("{} takes vectors of {} values", what, width));
  }
  for (const auto& item : vec.items) {
    auto v = edn_scalar(item);
    if (!v) return Status(StatusCode::InvalidArgument, fmt::format("{}: values must be scalars", what));
    row->push_back(std::move(*v));
  }
  return Status::OK();
}

void add_slot(std::vector<std::string>& out, const std::string& name) {
  if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
}

void term_slot(const ast::Term& t, std::vector<std::string>& out) {
  if (const auto* s = std::get_if<ast::Slot>(&t)) add_slot(out, s->name);
}

void expr_slots(const ast::Expr& e, std::vector<std::string>& out) {
  for (const auto& arg : e.args) {
    if (const auto* s = std::get_if<ast::Slot>(&arg)) add_slot(out, s->name);
    if (const auto* sub = std::get_if<std::shared_ptr<ast::Expr>>(&arg); sub && *sub) expr_slots(**sub, out);
  }
}

void collect_slots(const std::vector<ast::Clause>& clauses, std::vector<std::string>& out) {
  ast::walk_clauses(clauses, [&](const ast::Clause& clause) {
    ast::for_each_term(clause, [&](const ast::Term& t) { term_slot(t, out); });
    if (const auto* e = std::get_if<ast::ExprClause>(&clause.node)) expr_slots(e->expr, out);
  });
}

}  // namespace

Value datalog_value_of(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return Value::integer(sqlite3_value_int64(v));
    case SQLITE_FLOAT: return Value::floating(sqlite3_value_double(v));
    case SQLITE_TEXT: {
      std::string text(text_of(v));
      if (is_keyword_text(text)) return Value::keyword(std::move(text));
      return Value::string(std::move(text));
    }
    case SQLITE_BLOB: {
      const auto* p = static_cast<const char*>(sqlite3_value_blob(v));
      return Value::bytes(std::string(p ? p : "", static_cast<std::size_t>(sqlite3_value_bytes(v))));
    }
    default: return Value::nil();
  }
}

Status in_binding_relation(const ast::InBinding& b, sqlite3_value* arg, eval::Relation* out) {
  out->vars.clear();
  out->rows.clear();
  for (const auto& v : b.vars) out->vars.push_back(v.name);
  const std::string what = fmt::format(":in binding {}", b.vars.empty() ? "" : b.vars[0].name);
  switch (b.kind) {
    case ast::InBinding::Kind::Scalar:
      out->rows.push_back({datalog_value_of(arg)});
      return Status::OK();
    case ast::InBinding::Kind::Tuple: {
      edn::Node vec;
      DATALOG_RETURN_IF_ERROR(edn_argument(arg, what, &vec));
      eval::Row row;
      DATALOG_RETURN_IF_ERROR(row_of(vec, b.vars.size(), what, &row));
      out->rows.push_back(std::move(row));
      return Status::OK();
    }
    case ast::InBinding::Kind::Collection: {
      edn::Node vec;
      DATALOG_RETURN_IF_ERROR(edn_argument(arg, what, &vec));
      for (const auto& item : vec.items) {
        auto v = edn_scalar(item);
        if (!v) return Status(StatusCode::InvalidArgument, fmt::format("{}: values must be scalars", what));
        out->rows.push_back({std::move(*v)});
      }
      return Status::OK();
    }
    case ast::InBinding::Kind::Relation: {
      edn::Node vec;
      DATALOG_RETURN_IF_ERROR(edn_argument(arg, what, &vec));
      for (const auto& item : vec.items) {
        eval::Row row;
        DATALOG_RETURN_IF_ERROR(row_of(item, b.vars.size(), what, &row));
        out->rows.push_back(std::move(row));
      }
      return Status::OK();
    }
  }
  return Status::OK();
}

std::vector<std::string> query_slots(const ast::Query& query) {
  std::vector<std::string> out;
  if (query.as_of && query.as_of->kind == ast::AsOf::Kind::Slot) add_slot(out, query.as_of->slot);
  if (query.valid_at && query.valid_at->kind == ast::ValidAt::Kind::Slot) add_slot(out, query.valid_at->slot);
  collect_slots(query.where, out);
  return out;
}

}  // namespace datalog::ext
