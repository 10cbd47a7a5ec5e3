#include "extension/datalog_functions.h"

#include <string>

#include <fmt/format.h>

#include "engine/script_runner.h"
#include "engine/time_text.h"
#include "extension/connection_context.h"
#include "extension/graph_reading.h"
#include "extension/script_host.h"
#include "extension/sql_functions.h"

namespace datalog::ext {

namespace {

std::string text_arg(sqlite3_value* v) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_value_bytes(v))) : std::string();
}

void fail(sqlite3_context* ctx, const Status& st) {
  const std::string message = "datalog: " + st.message();
  sqlite3_result_error(ctx, message.c_str(), -1);
  const int code = st.code() == StatusCode::Busy          ? SQLITE_BUSY
                   : st.code() == StatusCode::Interrupted ? SQLITE_INTERRUPT
                   : st.code() == StatusCode::Full        ? SQLITE_FULL
                   : st.code() == StatusCode::ReadOnly    ? SQLITE_READONLY
                                                          : SQLITE_ERROR;
  sqlite3_result_error_code(ctx, code);
}

template <typename Body>
void guarded_call(sqlite3_context* ctx, Body&& body) noexcept {
  try {
    body();
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(ctx);
  } catch (const std::exception& e) {
    sqlite3_result_error(ctx, (std::string("datalog: internal error: ") + e.what()).c_str(), -1);
  }
}

std::shared_ptr<GraphSession> session_arg(sqlite3_context* ctx, sqlite3_value* name,
                                          std::string* qualified, eval::Limits* limits = nullptr) {
  auto* context = static_cast<ConnectionContext*>(sqlite3_user_data(ctx));
  std::string error;
  auto session = context->session_of_table(text_arg(name), &error, qualified, limits);
  if (!session) fail(ctx, Status(StatusCode::InvalidArgument, error));
  return session;
}

eval::RunOptions run_options(InterruptProbe& probe, SqlFunctions& sql_functions, const eval::Limits& limits) {
  eval::RunOptions options;
  options.limits = limits;
  options.now_ms = now_ms();
  options.interrupted = [&probe] { return probe.interrupted(); };
  options.external = &sql_functions;
  return options;
}

void datalog_exec(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guarded_call(ctx, [&] {
    std::string table;
    eval::Limits limits;
    auto session = session_arg(ctx, argv[0], &table, &limits);
    if (!session) return;
    sqlite3* db = sqlite3_context_db_handle(ctx);
    InterruptProbe probe(db);
    SqlFunctions sql_functions(db);
    SessionScriptHost host(db, *session, table);
    std::vector<CommandOutcome> outcomes;
    Status st = run_script(host, text_arg(argv[1]), run_options(probe, sql_functions, limits), &outcomes);
    // The last check before the commit point: an interrupt that came while the script ran fails
    // the statement, so the script must not have written anything.
    if (st.ok() && probe.interrupted()) st = Status(StatusCode::Interrupted, "interrupted");
    if (st.ok()) st = host.commit();
    if (!st.ok()) return fail(ctx, st);
    std::unique_ptr<GraphReading> names;
    GraphReading::open(*session, &names);
    const std::string text = format_outcomes(outcomes, names ? &names->access() : nullptr);
    sqlite3_result_text(ctx, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

void datalog_explain(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guarded_call(ctx, [&] {
    std::string table;
    eval::Limits limits;
    auto session = session_arg(ctx, argv[0], &table, &limits);
    if (!session) return;
    ast::Query query;
    Status st = parse_query(text_arg(argv[1]), &query);
    if (!st.ok()) return fail(ctx, st);
    std::unique_ptr<GraphReading> reading;
    st = GraphReading::open(*session, &reading);
    if (!st.ok()) return fail(ctx, st);
    GraphSession::Rules rules;
    st = reading->rules(&rules);
    if (st.ok()) st = check_query_with_rules(query, *rules);
    if (!st.ok()) return fail(ctx, st);
    InterruptProbe probe(sqlite3_context_db_handle(ctx));
    SqlFunctions sql_functions(sqlite3_context_db_handle(ctx));
    eval::RunOptions options = run_options(probe, sql_functions, limits);
    options.trace = true;
    eval::QueryResult result;
    st = eval::run_query(reading->access(), query, *rules, {}, options, &result);
    if (!st.ok()) return fail(ctx, st);
    std::string text = "step  clause  access  estimated rows  actual rows\n";
    int n = 0;
    for (const auto& s : result.trace.steps) {
      text += fmt::format("{:>3}.  {}{}  {}  est {:.0f}  actual {}\n", ++n,
                          std::string(static_cast<std::size_t>(s.depth) * 2, ' '), s.clause,
                          s.access, s.estimated_rows, s.actual_rows);
    }
    text += fmt::format("result: {} row{}", result.rows.size(), result.rows.size() == 1 ? "" : "s");
    sqlite3_result_text(ctx, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

void datalog_rules(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guarded_call(ctx, [&] {
    std::string table;
    auto session = session_arg(ctx, argv[0], &table);
    if (!session) return;
    std::unique_ptr<GraphReading> reading;
    Status st = GraphReading::open(*session, &reading);
    std::vector<StoredRule> rules;
    if (st.ok()) st = reading->access().rules(&rules);
    if (!st.ok()) return fail(ctx, st);
    std::string text;
    for (const auto& r : rules) text += (text.empty() ? "" : "\n") + r.source;
    sqlite3_result_text(ctx, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

void datalog_drop_rule(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guarded_call(ctx, [&] {
    std::string table;
    auto session = session_arg(ctx, argv[0], &table);
    if (!session) return;
    SessionScriptHost host(sqlite3_context_db_handle(ctx), *session, table);
    GraphWriter* writer = nullptr;
    Status st = host.begin_write(&writer);
    int removed = 0;
    if (st.ok()) {
      st = writer->remove_rules(text_arg(argv[1]), &removed);
      const Status ended = host.end_write(st.ok());
      if (st.ok()) st = ended;
    }
    InterruptProbe probe(sqlite3_context_db_handle(ctx));
    if (st.ok() && probe.interrupted()) st = Status(StatusCode::Interrupted, "interrupted");
    if (st.ok()) st = host.commit();
    if (!st.ok()) return fail(ctx, st);
    sqlite3_result_int(ctx, removed);
  });
}

// datalog_allow_graph_paths(on): whether store tables connected from now on may open graphs
// outside their database's folder (extension/graph_path.h). Direct-only, so a schema cannot
// call it. Returns the setting before the call.
void datalog_allow_graph_paths(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* context = static_cast<ConnectionContext*>(sqlite3_user_data(ctx));
  const bool before = context->any_graph_path();
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "datalog: datalog_allow_graph_paths takes 1 (allow) or 0 (refuse)", -1);
    return;
  }
  context->allow_any_graph_path(sqlite3_value_int64(argv[0]) != 0);
  sqlite3_result_int(ctx, before ? 1 : 0);
}

// datalog_limit(name [, value]): the connection's limit `name` (max_results or
// max_derived_facts) for every query on any graph, over the store tables' arguments; a query's
// own :max-results still wins. 0 is no limit, NULL unsets. Returns the setting before (NULL:
// unset).
void datalog_limit(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* context = static_cast<ConnectionContext*>(sqlite3_user_data(ctx));
  const std::string name = text_arg(argv[0]);
  std::optional<std::int64_t> value, before;
  if (argc == 2 && sqlite3_value_type(argv[1]) != SQLITE_NULL) {
    if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER || sqlite3_value_int64(argv[1]) < 0) {
      sqlite3_result_error(ctx, "datalog: datalog_limit takes a number of rows (0: no limit) or NULL", -1);
      return;
    }
    value = sqlite3_value_int64(argv[1]);
  }
  const bool known = argc == 1 ? context->get_limit(name, &before) : context->set_limit(name, value, &before);
  if (!known) {
    const std::string message =
        "datalog: unknown limit '" + name + "': expected max_results or max_derived_facts";
    sqlite3_result_error(ctx, message.c_str(), -1);
    return;
  }
  if (before) {
    sqlite3_result_int64(ctx, *before);
  } else {
    sqlite3_result_null(ctx);
  }
}

}  // namespace

int register_datalog_functions(sqlite3* db, ConnectionContext* context) {
  struct Fn {
    const char* name;
    int args;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  const Fn functions[] = {
      {"datalog_exec", 2, datalog_exec},
      {"datalog_explain", 2, datalog_explain},
      {"datalog_rules", 1, datalog_rules},
      {"datalog_drop_rule", 2, datalog_drop_rule},
      {"datalog_allow_graph_paths", 1, datalog_allow_graph_paths},
      {"datalog_limit", 1, datalog_limit},
      {"datalog_limit", 2, datalog_limit},
  };
  for (const Fn& f : functions) {
    // DIRECTONLY: they read and write graph files named by tables (or say which may be opened),
    // never from a schema object.
    const int rc = sqlite3_create_function_v2(db, f.name, f.args, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                              context, f.fn, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

}  // namespace datalog::ext
