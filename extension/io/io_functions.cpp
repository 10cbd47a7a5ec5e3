#include "extension/io/io_functions.h"

#include <fmt/format.h>

#include "extension/connection_context.h"
#include "extension/errors.h"
#include "extension/index_path.h"
#include "extension/session_reader.h"
#include "extension/interrupt_probe.h"
#include "extension/io/export_formats.h"
#include "extension/io/file_formats.h"
#include "extension/io/history_edn.h"
#include "extension/io/import_csv.h"
#include "extension/io/import_edn.h"
#include "extension/io/import_jsonl.h"
#include "extension/io/import_rdf.h"
#include "extension/io/import_target.h"
#include "extension/log_rows_import.h"
#include "extension/replay_progress.h"
#include "extension/script_host.h"
#include "extension/sql_values.h"
#include "engine/time_text.h"

namespace datalog::ext {

using store::Status;
using store::StatusCode;

namespace {

struct Call {
  sqlite3* db;
  ConnectionContext* context;
  std::shared_ptr<GraphSession> session;
  std::string table;  // qualified, quoted: for joining the caller's transaction
  std::string file;   // as the caller named it
  std::string path;   // resolved
  io::FileFormat format;
};

// The graph, the file and its format of a call; who: "datalog_import" or "datalog_export".
Status prepare(sqlite3_context* ctx, int argc, sqlite3_value** argv, const char* who, Call* call) {
  call->db = sqlite3_context_db_handle(ctx);
  call->context = static_cast<ConnectionContext*>(sqlite3_user_data(ctx));
  std::string error;
  call->session = call->context->session_of_table(std::string(text_of(argv[0])), &error, &call->table);
  if (!call->session) return Status(StatusCode::InvalidArgument, error);
  DATALOG_RETURN_IF_ERROR(call->session->check_log_and_owner());
  call->file = std::string(text_of(argv[1]));
  if (call->file.empty()) return Status(StatusCode::InvalidArgument, fmt::format("{}: the file name is empty", who));
  const std::optional<io::FileFormat> format =
      argc > 2 && sqlite3_value_type(argv[2]) != SQLITE_NULL ? io::format_named(text_of(argv[2]))
                                                             : io::format_of_path(call->file);
  if (!format) {
    return Status(StatusCode::InvalidArgument,
                  argc > 2 ? fmt::format("{}: unknown format '{}' (one of {})", who, text_of(argv[2]), io::known_formats())
                           : fmt::format("{}: cannot tell the format of '{}' from its extension; name it: "
                                         "{}('{}', '{}', 'nt') (one of {})",
                                         who, call->file, who, text_of(argv[0]), call->file, io::known_formats()));
  }
  call->format = *format;
  const GraphLog& log = *call->session->log();
  if (!resolve_graph_path(call->db, log.schema(), log.table(), call->file, call->context->any_graph_path(),
                          &call->path, &error)) {
    // The rule is the graph files' (index_path.h); its message speaks of a graph.
    if (error.rfind("graph '", 0) == 0) error.replace(0, 5, "file");
    return Status(StatusCode::InvalidArgument, fmt::format("{}: {}", who, error));
  }
  return Status::OK();
}

// --- import ----------------------------------------------------------------------------------

Status import_history(Call& call, io::InputFile& file, std::uint64_t* facts) {
  if (!sqlite3_get_autocommit(call.db) || call.session->writer()) {
    return Status(StatusCode::Misuse, "datalog_import: a history (.edn export) is imported as a transaction of "
                                      "its own: call it outside BEGIN ... COMMIT");
  }
  GraphLog& log = *call.session->log();
  GraphLog::Tip tip;
  log.forget_tip();
  DATALOG_RETURN_IF_ERROR(log.tip(&tip));
  if (tip.seq != 0) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("datalog_import: {} is a whole history, which goes into an empty graph only; "
                              "table {}.{} holds one (CREATE VIRTUAL TABLE g2 USING datalog, then import into g2)",
                              file.display_name(), log.schema(), log.table()));
  }
  InterruptProbe probe(call.db);
  ReplayProgress progress(fmt::format("importing {}", file.display_name()), file.size(), "facts");
  return import_log_rows(
      call.db, log, "datalog_import",
      [&](const LogRowSink& sink) { return io::read_history(file, probe, progress, sink, facts); },
      // Inside the import's transaction: records the index cannot take (a forged file) fail it.
      [&]() -> Status {
        if (probe.interrupted()) return Status(StatusCode::Interrupted, "interrupted");
        std::uint64_t rows = 0;
        return call.session->rebuild(&rows);
      });
}

Status import_file(Call& call, std::uint64_t* facts) {
  std::unique_ptr<io::InputFile> file;
  DATALOG_RETURN_IF_ERROR(io::InputFile::open(call.path, call.file, &file));
  if (call.format == io::FileFormat::Edn && io::is_history_file(call.path)) {
    return import_history(call, *file, facts);
  }
  InterruptProbe probe(call.db);
  ReplayProgress progress(fmt::format("importing {}", call.file), file->size(), "facts");
  SessionScriptHost host(call.db, *call.session, call.table);
  host.set_page_bytes(call.context->write_page_bytes());
  io::ImportTarget target(host, *file, probe, progress);
  Status st = target.begin();
  if (st.ok()) {
    switch (call.format) {
      case io::FileFormat::NTriples:
      case io::FileFormat::Turtle: st = io::import_rdf(target); break;
      case io::FileFormat::Csv: st = io::import_csv(target); break;
      case io::FileFormat::JsonLines: st = io::import_jsonl(target); break;
      case io::FileFormat::Edn: st = io::import_edn_transactions(target); break;
    }
  }
  st = target.finish(st);
  *facts = target.facts_written();
  return st;
}

// --- export ----------------------------------------------------------------------------------

Status check_not_index(const Call& call) {
  const std::string& index = call.session->env().path();
  for (const char* suffix : {"", "-lock", "-sync"}) {
    const std::string file = index + suffix;
    if (!index.empty() && (file == call.path || (!file_identity(call.path).empty() &&
                                                 file_identity(call.path) == file_identity(file)))) {
      return Status(StatusCode::InvalidArgument,
                    fmt::format("datalog_export: '{}' is the graph's index; name another file", call.file));
    }
  }
  return Status::OK();
}

Status export_file(Call& call, std::uint64_t* facts) {
  DATALOG_RETURN_IF_ERROR(check_not_index(call));
  std::unique_ptr<io::OutputFile> out;
  DATALOG_RETURN_IF_ERROR(io::OutputFile::create(call.path, call.file, &out));
  InterruptProbe probe(call.db);
  if (call.format == io::FileFormat::Edn) {
    GraphLog& log = *call.session->log();
    GraphLog::Tip tip;
    log.forget_tip();
    DATALOG_RETURN_IF_ERROR(log.tip(&tip));
    ReplayProgress progress(fmt::format("exporting to {}", call.file), tip.seq, "facts");
    DATALOG_RETURN_IF_ERROR(io::export_history(log, tip.seq, *out, probe, progress, facts));
    return out->commit();
  }
  std::unique_ptr<GraphReading> reading;
  DATALOG_RETURN_IF_ERROR(GraphReading::open(*call.session, &reading));
  ReplayProgress progress(fmt::format("exporting to {}", call.file), 0, "facts");
  io::ExportContext c{reading->access(), *out, probe, progress, now_ms()};
  switch (call.format) {
    case io::FileFormat::NTriples: DATALOG_RETURN_IF_ERROR(io::export_ntriples(c, facts)); break;
    case io::FileFormat::Turtle: DATALOG_RETURN_IF_ERROR(io::export_turtle(c, facts)); break;
    case io::FileFormat::Csv: DATALOG_RETURN_IF_ERROR(io::export_csv(c, facts)); break;
    case io::FileFormat::JsonLines: DATALOG_RETURN_IF_ERROR(io::export_jsonl(c, facts)); break;
    case io::FileFormat::Edn: break;
  }
  return out->commit();
}

template <typename Body>
void run_call(sqlite3_context* ctx, int argc, sqlite3_value** argv, const char* who, Body&& body) noexcept {
  try {
    Call call;
    std::uint64_t facts = 0;
    Status st = prepare(ctx, argc, argv, who, &call);
    if (st.ok()) st = body(call, &facts);
    if (!st.ok()) {
      const std::string message = "datalog: " + st.message();
      sqlite3_result_error(ctx, message.c_str(), -1);
      sqlite3_result_error_code(ctx, sqlite_code(st));
      return;
    }
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(facts));
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(ctx);
  } catch (const std::exception& e) {
    sqlite3_result_error(ctx, fmt::format("datalog: internal error: {}", e.what()).c_str(), -1);
  }
}

}  // namespace

void datalog_import(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  run_call(ctx, argc, argv, "datalog_import", import_file);
}

void datalog_export(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  run_call(ctx, argc, argv, "datalog_export", export_file);
}

}  // namespace datalog::ext
