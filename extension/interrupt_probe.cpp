#include "extension/interrupt_probe.h"

namespace datalog::ext {

namespace {

// About 2,000 virtual-machine steps: a progress handler set with N up to that is called.
constexpr const char* kProgressSql =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 256) "
    "SELECT count(*) FROM n";

}  // namespace

ProbeStatements::~ProbeStatements() {
  sqlite3_finalize(probe);
  sqlite3_finalize(progress);
}

bool InterruptProbe::stopped_by(sqlite3_stmt** stmt, const char* sql) {
  if (!*stmt) {
    // Preparing fails with SQLITE_INTERRUPT once an interrupt is pending: that is the answer.
    const int rc = sqlite3_prepare_v2(db_, sql, -1, stmt, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(*stmt);
      *stmt = nullptr;
      return rc == SQLITE_INTERRUPT;
    }
  }
  const int rc = sqlite3_step(*stmt);
  sqlite3_reset(*stmt);
  return rc == SQLITE_INTERRUPT;
}

bool InterruptProbe::interrupted() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_progress_ >= kProgressEvery) {
    last_progress_ = now;
    return stopped_by(&statements_->progress, kProgressSql);
  }
  return stopped_by(&statements_->probe, "SELECT 1");
}

}  // namespace datalog::ext
