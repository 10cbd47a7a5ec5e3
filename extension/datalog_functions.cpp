#include "extension/datalog_functions.h"

#include <string>

#include <fmt/format.h>

#include "engine/eval/json_text.h"
#include "engine/script_runner.h"
#include "engine/time_text.h"
#include "extension/connection_context.h"
#include "extension/datalog_dot.h"
#include "extension/direct_only.h"
#include "extension/errors.h"
#include "extension/index_check_function.h"
#include "extension/session_reader.h"
#include "extension/import_v1.h"
#include "extension/interrupt_probe.h"
#include "extension/io/io_functions.h"
#include "extension/script_host.h"
#include "extension/sql_functions.h"
#include "extension/sql_values.h"

namespace datalog::ext {

namespace {

std::string text_arg(sqlite3_value* v) { return std::string(text_of(v)); }

void fail(sqlite3_context* ctx, const Status& st) {
  const std::string message = "datalog: " + st.message();
  sqlite3_result_error(ctx, message.c_str(), -1);
  // The codes the store tables give for the same failures (SQLITE_FULL, SQLITE_IOERR, ...).
  sqlite3_result_error_code(ctx, sqlite_code(st));
}

template <typename Body>
void guarded_call(sqlite3_context* ctx, Body&& body) noexcept {
  try {
    body();
  } catch (const std::bad_alloc&) {
    const std::string message = memory_limit_message();
    if (message.empty()) {
      sqlite3_result_error_nomem(ctx);
    } else {
      sqlite3_result_error(ctx, ("datalog: " + message).c_str(), -1);
    }
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

void datalog_exec(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guarded_call(ctx, [&] {
    std::string table;
    eval::Limits limits;
    auto session = session_arg(ctx, argv[0], &table, &limits);
    if (!session) return;
    sqlite3* db = sqlite3_context_db_handle(ctx);
    InterruptProbe probe(db, &session->probe_statements());
    SqlFunctions sql_functions(db);
    auto* context = static_cast<ConnectionContext*>(sqlite3_user_data(ctx));
    SessionScriptHost host(db, *session, table);
    host.set_page_bytes(context->write_page_bytes());
    const eval::RunOptions options = run_options(probe, sql_functions, limits);
    std::shared_ptr<const ParsedScripts::Commands> commands;
    std::vector<CommandOutcome> outcomes;
    Status st = context->parsed_scripts().get(text_arg(argv[1]), options.interrupted, &commands);
    if (st.ok()) st = run_commands(host, *commands, options, &outcomes);
    if (st.ok()) st = host.commit(probe);
    if (!st.ok()) return fail(ctx, st);
    std::unique_ptr<GraphReading> names;
    if (outcomes_show_entities(outcomes)) GraphReading::open(*session, &names);
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
    InterruptProbe probe(sqlite3_context_db_handle(ctx), &session->probe_statements());
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
    InterruptProbe probe(sqlite3_context_db_handle(ctx), &session->probe_statements());
    if (st.ok()) st = host.commit(probe);
    if (!st.ok()) return fail(ctx, st);
    sqlite3_result_int(ctx, removed);
  });
}

// datalog_stats(graph): the index file, its readers and its position in the log, as JSON. A
// snapshot held open (a long statement, a transaction left open in another process) keeps LMDB
// from reusing any page it may see, so the file grows while it lasts: oldest_reader names the
// process that holds the oldest one and how many graph transactions it is behind.
void datalog_stats(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guarded_call(ctx, [&] {
    std::string table;
    auto session = session_arg(ctx, argv[0], &table);
    if (!session) return;
    store::GraphEnv::Usage u;
    std::uint64_t log_rows = 0, indexed_rows = 0;
    Status st = session->env().usage(&u);
    if (st.ok()) st = session->positions(&log_rows, &indexed_rows);
    if (!st.ok()) return fail(ctx, st);
    std::string path_json = "\"";
    for (char c : session->env().path()) {
      if (c == '"' || c == '\\') path_json += '\\';
      path_json += c;
    }
    path_json += '"';
    const std::string oldest =
        u.readers == 0 ? "null"
                       : fmt::format("{{\"pid\":{},\"transactions_behind\":{}}}", u.oldest_pid,
                                     u.last_txnid - u.oldest_txnid);
    const std::string text = fmt::format(
        "{{\"graph\":{},\"file_bytes\":{},\"used_bytes\":{},\"map_bytes\":{},\"readers\":{},"
        "\"oldest_reader\":{},\"log_rows\":{},\"indexed_rows\":{},\"index_format\":{}}}",
        path_json, u.file_bytes, u.used_bytes, u.map_bytes, u.readers, oldest, log_rows, indexed_rows,
        session->env().format_version());
    sqlite3_result_text(ctx, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

// datalog_check(graph): the index compared with a new one made from the log (index_check_function.h),
// as JSON: {"ok":true|false,"log_rows":N,"records":{...},"problem_count":N,"problems":[...]}.
void datalog_check(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guarded_call(ctx, [&] {
    std::string table;
    auto session = session_arg(ctx, argv[0], &table);
    if (!session) return;
    store::IndexCheck check;
    std::uint64_t rows = 0;
    const Status st = check_graph(*session, &check, &rows);
    if (!st.ok()) return fail(ctx, st);
    std::string problems = "[";
    for (const std::string& p : check.problems) {
      if (problems.size() > 1) problems += ',';
      eval::append_json_string(problems, p);
    }
    problems += ']';
    const std::string text = fmt::format(
        "{{\"ok\":{},\"log_rows\":{},\"records\":{{\"eavt\":{},\"aevt\":{},\"avet\":{},\"vaet\":{}}},"
        "\"problem_count\":{},\"problems\":{}}}",
        check.problem_count == 0 ? "true" : "false", rows, check.eavt, check.aevt, check.avet, check.vaet,
        check.problem_count, problems);
    sqlite3_result_text(ctx, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

// datalog_rebuild(graph): the graph's index made again from its log, committed in parts as a
// large transaction is (other connections wait for it). Returns the number of log rows replayed.
void datalog_rebuild(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guarded_call(ctx, [&] {
    std::string table;
    auto session = session_arg(ctx, argv[0], &table);
    if (!session) return;
    std::uint64_t rows = 0;
    const Status st = session->rebuild(&rows);
    if (!st.ok()) return fail(ctx, st);
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(rows));
  });
}

}  // namespace

int register_datalog_functions(sqlite3* db, ConnectionContext* context) {
  // Direct-only: they read and write graph files named by tables, never from a schema object.
  const DirectOnlyFunction functions[] = {
      {"datalog_exec", 2, datalog_exec},
      {"datalog_explain", 2, datalog_explain},
      {"datalog_rules", 1, datalog_rules},
      {"datalog_drop_rule", 2, datalog_drop_rule},
      {"datalog_stats", 1, datalog_stats},
      {"datalog_rebuild", 1, datalog_rebuild},
      {"datalog_check", 1, datalog_check},
      {"datalog_import_v1", 2, datalog_import_v1},
      {"datalog_import", 2, datalog_import},
      {"datalog_import", 3, datalog_import},
      {"datalog_export", 2, datalog_export},
      {"datalog_export", 3, datalog_export},
      {"datalog_dot", 2, datalog_dot},
  };
  return register_direct_only(db, context, functions);
}

}  // namespace datalog::ext
