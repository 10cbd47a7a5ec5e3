#include "engine/eval/expression_eval.h"

#include <algorithm>
#include <array>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "engine/functions/builtins.h"
#include "engine/functions/regex.h"

namespace datalog::eval {

namespace {

// The value of one argument; nullopt = the row fails (an inner error).
Status argument_value(EvalContext& ctx, const ast::ExprArg& arg, const Relation& rel,
                      RowView row, std::optional<Value>* out);

// A function of the host (a SQL function, §16); unknown everywhere is a query error.
Status call_external(EvalContext& ctx, const std::string& name, std::span<const Value> args,
                     std::optional<Value>* out) {
  if (ExternalFunctions* external = ctx.external_functions()) {
    bool found = false;
    DATALOG_RETURN_IF_ERROR(
        external->call(ctx.graph(), name, std::vector<Value>(args.begin(), args.end()), &found, out));
    if (found) return Status::OK();
  }
  if (args.size() == 1) {
    return Status(StatusCode::InvalidArgument, fmt::format("unknown predicate: '{}'", name));
  }
  return Status(StatusCode::InvalidArgument, fmt::format("unknown expression operator: {}", name));
}

// Which function e.op names: a `sql/` name, a regex function, a built-in, else the host's.
EvalContext::Callee resolve_callee(const ast::Expr& e) {
  using Kind = EvalContext::Callee::Kind;
  EvalContext::Callee c{Kind::External, nullptr, e.op, e.op, e.args.size()};
  if (std::optional<std::string> sql_name = sql_function_name(e.op)) {
    c.kind = Kind::Sql;
    c.name = std::move(*sql_name);
  } else if (functions::is_regex_function(e.op) && e.args.size() == 2) {
    c.kind = Kind::Regex;
  } else if (const functions::Builtin* b = functions::find_builtin(e.op)) {
    c.kind = Kind::Builtin;
    c.builtin = b;
  }
  return c;
}

constexpr std::size_t kInlineArgs = 4;  // most calls take fewer: no heap for their arguments

// Text a function made counts towards the query's memory (engine/query_memory.h): a chain of
// (str ?s ?s) doubles it at each step, and must stop at the budget, not at the machine's end.
std::size_t text_bytes(const Value& v) {
  if (v.is(ValueKind::String)) return v.as_string().size();
  if (v.is(ValueKind::Keyword)) return v.as_keyword().size();
  if (v.is(ValueKind::Bytes)) return v.as_bytes().size();
  return 0;
}

// Before a call over large text: its result may be as large as its arguments (str, replace, ...)
// and is built in a buffer first, so a call that could take the query past its budget is refused
// before it makes that text (twice the arguments' bytes).
Status check_room_for(EvalContext& ctx, std::span<const Value> args) {
  constexpr std::size_t kLargeText = std::size_t{1} << 20;
  std::size_t bytes = 0;
  for (const Value& v : args) bytes += text_bytes(v);
  if (bytes < kLargeText) return Status::OK();
  return ctx.check_memory(2 * bytes);
}

Status count_text(EvalContext& ctx, const std::optional<Value>& v) {
  if (!v) return Status::OK();
  const std::size_t bytes = text_bytes(*v);
  if (bytes == 0) return Status::OK();
  QueryMemory::on_text(bytes);
  return ctx.check_memory();
}

Status call_expression(EvalContext& ctx, const ast::Expr& e, const Relation& rel, RowView row,
                       std::optional<Value>* out) {
  using Kind = EvalContext::Callee::Kind;
  auto found = ctx.callees().find(&e);
  if (found == ctx.callees().end()) {
    found = ctx.callees().emplace(&e, resolve_callee(e)).first;
  } else if (found->second.arity != e.args.size() || found->second.op != e.op) {
    found->second = resolve_callee(e);
  }
  const EvalContext::Callee& callee = found->second;

  std::array<Value, kInlineArgs> inline_args;
  std::vector<Value> heap_args;
  if (e.args.size() > kInlineArgs) heap_args.resize(e.args.size());
  const std::span<Value> args = e.args.size() > kInlineArgs
                                    ? std::span<Value>(heap_args)
                                    : std::span<Value>(inline_args.data(), e.args.size());
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    std::optional<Value> v;
    DATALOG_RETURN_IF_ERROR(argument_value(ctx, e.args[i], rel, row, &v));
    if (!v) {
      out->reset();
      return Status::OK();
    }
    args[i] = std::move(*v);
  }
  switch (callee.kind) {
    case Kind::Sql:
      DATALOG_RETURN_IF_ERROR(call_external(ctx, callee.name, args, out));
      return count_text(ctx, *out);
    case Kind::Regex: {
      const std::size_t p = functions::regex_pattern_argument(e.op);
      if (!args[p].is(ValueKind::String)) {
        out->reset();
        return Status::OK();
      }
      const re2::RE2* re = nullptr;
      DATALOG_RETURN_IF_ERROR(ctx.regexes().get(args[p].as_string(), &re));
      *out = functions::call_regex(e.op, *re, args[1 - p]).value;
      return Status::OK();
    }
    case Kind::Builtin: {
      if (!callee.builtin->arity.accepts(args.size())) return functions::check_builtin_arity(e.op, args.size());
      DATALOG_RETURN_IF_ERROR(check_room_for(ctx, args));
      functions::CallResult r = callee.builtin->call(args);
      if (r.failed()) return Status(StatusCode::InvalidArgument, std::move(r.error));
      *out = std::move(r.value);
      return count_text(ctx, *out);
    }
    case Kind::External: break;
  }
  DATALOG_RETURN_IF_ERROR(call_external(ctx, callee.name, args, out));
  return count_text(ctx, *out);
}

}  // namespace

std::optional<std::string> host_function_of(const ast::Expr& e) {
  EvalContext::Callee callee = resolve_callee(e);
  using Kind = EvalContext::Callee::Kind;
  if (callee.kind == Kind::Sql || callee.kind == Kind::External) return std::move(callee.name);
  return std::nullopt;
}

namespace {

Status argument_value(EvalContext& ctx, const ast::ExprArg& arg, const Relation& rel,
                      RowView row, std::optional<Value>* out) {
  if (const auto* v = std::get_if<ast::Variable>(&arg)) {
    const int col = rel.column(v->name);
    if (col < 0) {
      return Status(StatusCode::InvalidArgument,
                    fmt::format("variable {} in expression clause is not bound by any earlier clause",
                                v->name));
    }
    *out = row[static_cast<std::size_t>(col)];
    return Status::OK();
  }
  if (const auto* c = std::get_if<Value>(&arg)) {
    *out = *c;
    return Status::OK();
  }
  if (const auto* s = std::get_if<ast::Slot>(&arg)) {
    return Status(StatusCode::InvalidArgument, fmt::format("missing bind value for slot '${}'", s->name));
  }
  const auto& sub = std::get<std::shared_ptr<ast::Expr>>(arg);
  return call_expression(ctx, *sub, rel, row, out);
}

// [(get-else ?e :attr default) ?v]: the entity's values of :attr, or default when it has none.
Status get_else(EvalContext& ctx, const ast::Expr& e, const Relation& rel, RowView row,
                std::vector<Value>* produced) {
  if (e.args.size() != 3) {
    return Status(StatusCode::InvalidArgument, "get-else takes exactly 3 arguments: ?e :attr default");
  }
  std::optional<Value> entity, attr, fallback;
  DATALOG_RETURN_IF_ERROR(argument_value(ctx, e.args[0], rel, row, &entity));
  DATALOG_RETURN_IF_ERROR(argument_value(ctx, e.args[1], rel, row, &attr));
  DATALOG_RETURN_IF_ERROR(argument_value(ctx, e.args[2], rel, row, &fallback));
  if (!entity || !attr || !fallback) return Status::OK();
  std::optional<EntityId> id, a;
  DATALOG_RETURN_IF_ERROR(ctx.as_entity(*entity, &id));
  DATALOG_RETURN_IF_ERROR(ctx.as_attribute(*attr, &a));
  if (id && a) {
    DatomFilter f;
    f.e = id;
    f.a = a;
    DATALOG_RETURN_IF_ERROR(ctx.graph().scan(f, ctx.view(), [&](const Datom& d) {
      produced->push_back(d.v);
      return true;
    }));
  }
  if (produced->empty()) produced->push_back(*fallback);
  return Status::OK();
}

// [(missing? ?e :attr)]: true when the entity has no visible value of :attr.
Status missing(EvalContext& ctx, const ast::Expr& e, const Relation& rel, RowView row,
               bool* result) {
  if (e.args.size() != 2) {
    return Status(StatusCode::InvalidArgument, "missing? takes exactly 2 arguments: ?e :attr");
  }
  std::optional<Value> entity, attr;
  DATALOG_RETURN_IF_ERROR(argument_value(ctx, e.args[0], rel, row, &entity));
  DATALOG_RETURN_IF_ERROR(argument_value(ctx, e.args[1], rel, row, &attr));
  *result = true;
  if (!entity || !attr) return Status::OK();
  std::optional<EntityId> id, a;
  DATALOG_RETURN_IF_ERROR(ctx.as_entity(*entity, &id));
  DATALOG_RETURN_IF_ERROR(ctx.as_attribute(*attr, &a));
  if (!id || !a) return Status::OK();
  DatomFilter f;
  f.e = id;
  f.a = a;
  return ctx.graph().scan(f, ctx.view(), [&](const Datom&) {
    *result = false;
    return false;
  });
}

}  // namespace

Status evaluate_clause_expression(EvalContext& ctx, const ast::ExprClause& clause,
                                  const Relation& rel, RowView row, std::vector<Value>* produced) {
  const ast::Expr& e = clause.expr;
  // string_view compares lengths first: these run for every row of a filter or binding.
  if (std::string_view(e.op) == "get-else") {
    std::vector<Value> values;
    DATALOG_RETURN_IF_ERROR(get_else(ctx, e, rel, row, &values));
    if (clause.out) {
      *produced = std::move(values);
    } else {
      for (const Value& v : values) {
        if (functions::truthy(v)) {
          produced->push_back(Value::boolean(true));
          break;
        }
      }
    }
    return Status::OK();
  }
  if (std::string_view(e.op) == "missing?") {
    bool result = false;
    DATALOG_RETURN_IF_ERROR(missing(ctx, e, rel, row, &result));
    if (clause.out) produced->push_back(Value::boolean(result));
    else if (result) produced->push_back(Value::boolean(true));
    return Status::OK();
  }
  if (std::string_view(e.op) == "ground") {
    if (e.args.size() != 1) return Status(StatusCode::InvalidArgument, "ground takes exactly 1 argument");
    std::optional<Value> v;
    DATALOG_RETURN_IF_ERROR(argument_value(ctx, e.args[0], rel, row, &v));
    if (v) produced->push_back(std::move(*v));
    return Status::OK();
  }
  std::optional<Value> result;
  DATALOG_RETURN_IF_ERROR(call_expression(ctx, e, rel, row, &result));
  if (!result) return Status::OK();  // a row error drops the row
  if (clause.out) {
    produced->push_back(std::move(*result));
  } else if (functions::truthy(*result)) {
    produced->push_back(Value::boolean(true));
  }
  return Status::OK();
}

void expr_variables(const ast::Expr& e, std::vector<std::string>& out) {
  for (const auto& arg : e.args) {
    if (const auto* v = std::get_if<ast::Variable>(&arg); v && !v->is_wildcard()) {
      if (std::find(out.begin(), out.end(), v->name) == out.end()) out.push_back(v->name);
    } else if (const auto* sub = std::get_if<std::shared_ptr<ast::Expr>>(&arg); sub && *sub) {
      expr_variables(**sub, out);
    }
  }
}

}  // namespace datalog::eval
