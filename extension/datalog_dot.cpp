#include "extension/datalog_dot.h"

#include <fmt/format.h>

#include "engine/script_runner.h"
#include "engine/time_text.h"
#include "extension/connection_context.h"
#include "extension/dot_text.h"
#include "extension/errors.h"
#include "extension/session_reader.h"
#include "extension/interrupt_probe.h"
#include "extension/sql_functions.h"
#include "extension/sql_values.h"

namespace datalog::ext {

namespace {

Status invalid(const std::string& message) { return Status(StatusCode::InvalidArgument, message); }

// An entity of the result as a node: its ident, else #id.
Status node_of(store::GraphAccess& access, const Value& v, DotNode* out) {
  std::optional<Value> name;
  DATALOG_RETURN_IF_ERROR(access.ident_of(v.as_ref(), &name));
  out->id = fmt::format("n{}", v.as_ref());
  out->label = name ? name->to_edn() : fmt::format("#{}", v.as_ref());
  return Status::OK();
}

// One result row (entity, attribute, value) as a fact of the picture.
Status fact_of(store::GraphAccess& access, eval::RowView row, DotFact* out) {
  if (!row[0].is(ValueKind::Ref)) {
    return invalid(fmt::format("datalog_dot: the first :find element must be an entity, got {}", row[0].to_edn()));
  }
  DATALOG_RETURN_IF_ERROR(node_of(access, row[0], &out->entity));
  if (row[1].is(ValueKind::Ref)) {
    DotNode attribute;
    DATALOG_RETURN_IF_ERROR(node_of(access, row[1], &attribute));
    out->attribute = attribute.label;
  } else if (row[1].is(ValueKind::Keyword)) {
    out->attribute = row[1].to_edn();
  } else {
    return invalid(fmt::format("datalog_dot: the second :find element must be an attribute, got {}",
                               row[1].to_edn()));
  }
  if (row[2].is(ValueKind::Ref)) {
    out->target.emplace();
    return node_of(access, row[2], &*out->target);
  }
  // Strings as their text in quotes, so a multi-line string shows its lines; the rest as EDN.
  out->value = row[2].is(ValueKind::String) ? "\"" + row[2].as_string() + "\"" : row[2].to_edn();
  return Status::OK();
}

Status dot_of(sqlite3_context* ctx, sqlite3_value** argv, std::string* out) {
  auto* context = static_cast<ConnectionContext*>(sqlite3_user_data(ctx));
  const std::string graph(text_of(argv[0]));
  std::string error;
  eval::Limits limits;
  auto session = context->session_of_table(graph, &error, nullptr, &limits);
  if (!session) return invalid(error);
  ast::Query query;
  DATALOG_RETURN_IF_ERROR(parse_query(text_of(argv[1]), &query));
  if (query.find.size() != 3) {
    return invalid(fmt::format("datalog_dot needs a query whose :find is an entity, an attribute and a "
                               "value, such as [:find ?e ?a ?v ...]; this one has {} element{}",
                               query.find.size(), query.find.size() == 1 ? "" : "s"));
  }
  std::unique_ptr<GraphReading> reading;
  DATALOG_RETURN_IF_ERROR(GraphReading::open(*session, &reading));
  GraphSession::Rules rules;
  DATALOG_RETURN_IF_ERROR(reading->rules(&rules));
  DATALOG_RETURN_IF_ERROR(check_query_with_rules(query, *rules));
  sqlite3* db = sqlite3_context_db_handle(ctx);
  InterruptProbe probe(db);
  SqlFunctions sql_functions(db);
  const eval::RunOptions options = run_options(probe, sql_functions, limits);
  eval::QueryResult result;
  DATALOG_RETURN_IF_ERROR(eval::run_query(reading->access(), query, *rules, {}, options, &result));
  std::vector<DotFact> facts(result.rows.size());
  std::size_t i = 0;
  for (const auto& row : result.rows) DATALOG_RETURN_IF_ERROR(fact_of(reading->access(), row, &facts[i++]));
  *out = dot_text(graph, std::move(facts));
  return Status::OK();
}

}  // namespace

void datalog_dot(sqlite3_context* ctx, int, sqlite3_value** argv) noexcept {
  try {
    std::string text;
    const Status st = dot_of(ctx, argv, &text);
    if (!st.ok()) {
      const std::string message = st.message().rfind("datalog", 0) == 0 ? st.message() : "datalog: " + st.message();
      sqlite3_result_error(ctx, message.c_str(), -1);
      sqlite3_result_error_code(ctx, sqlite_code(st));
      return;
    }
    sqlite3_result_text(ctx, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  } catch (const std::bad_alloc&) {
    const std::string message = memory_limit_message();
    if (message.empty()) sqlite3_result_error_nomem(ctx);
    else sqlite3_result_error(ctx, ("datalog: " + message).c_str(), -1);
  } catch (const std::exception& e) {
    sqlite3_result_error(ctx, (std::string("datalog: internal error: ") + e.what()).c_str(), -1);
  }
}

}  // namespace datalog::ext
