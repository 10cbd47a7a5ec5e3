#include "extension/index_check_function.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <string>

#include "extension/index_path.h"
#include "extension/replay_progress.h"
#include "lmdb_store/read_view.h"
#include "lmdb_store/write_txn.h"

namespace datalog::ext {

using store::Status;
using store::StatusCode;

namespace {

constexpr auto kScratchTimeout = std::chrono::milliseconds(1'000);  // nobody else has the file

// The rows 1..through of log replayed into a new private graph.
Status replay_into_scratch(GraphLog& log, std::uint64_t through,
                           std::shared_ptr<store::GraphEnv>* scratch, std::uint64_t* rows) {
  std::string folder;
  const std::string path = make_temp_graph_file(&folder);
  if (path.empty()) {
    return Status(StatusCode::CantOpen, fmt::format("datalog_check: cannot create a temporary graph in {}", folder));
  }
  store::OpenOptions options;
  options.create = true;
  options.delete_on_close = true;
  DATALOG_RETURN_IF_ERROR(store::GraphEnv::open(path, options, scratch));
  std::unique_ptr<store::WriteTxn> w;
  DATALOG_RETURN_IF_ERROR(store::WriteTxn::begin(*scratch, kScratchTimeout, &w));
  ReplayProgress progress(fmt::format("checking the index of {}.{}", log.schema(), log.table()), through);
  DATALOG_RETURN_IF_ERROR(log.read(0, through, [&](const store::LogRow& row) {
    ++*rows;
    progress.row_done();
    return w->replay_row(row);
  }));
  DATALOG_RETURN_IF_ERROR(w->finish_replay());
  return w->commit();
}

}  // namespace

Status check_graph(GraphSession& session, store::IndexCheck* out, std::uint64_t* rows) {
  if (session.writer()) {
    return Status(StatusCode::Misuse, "cannot check the index inside a transaction that writes the graph");
  }
  GraphSession::Visible visible;
  DATALOG_RETURN_IF_ERROR(session.prepare_read(&visible));
  std::unique_ptr<store::ReadSnapshot> index;
  DATALOG_RETURN_IF_ERROR(store::ReadSnapshot::begin(session.shared_env(), &index));
  store::IndexPosition pos;
  DATALOG_RETURN_IF_ERROR(index->position(&pos));
  std::uint64_t log_seq = 0, indexed_seq = 0;
  DATALOG_RETURN_IF_ERROR(session.positions(&log_seq, &indexed_seq));
  if (pos.seq != log_seq) {
    // Another connection committed between the catch-up and the snapshot.
    return Status(StatusCode::Busy, fmt::format("datalog_check: the graph changed while the check began "
                                                "(index at log row {}, this connection sees row {}); run it again",
                                                pos.seq, log_seq));
  }
  if (pos.unfinished) {
    return Status(StatusCode::Busy,
                  "datalog_check: the index holds part of a transaction that has not committed (a "
                  "large transaction running, or one that ended without committing, whose records "
                  "the next write removes by rebuilding the index); run it again later");
  }
  *rows = 0;
  std::shared_ptr<store::GraphEnv> scratch;
  DATALOG_RETURN_IF_ERROR(replay_into_scratch(*session.log(), pos.seq, &scratch, rows));
  std::unique_ptr<store::ReadSnapshot> expected;
  DATALOG_RETURN_IF_ERROR(store::ReadSnapshot::begin(scratch, &expected));
  return store::compare_indexes(session.env(), index->txn(), *scratch, expected->txn(), out);
}

}  // namespace datalog::ext
