// extension/interrupt_probe.h: whether the application wants a running Datalog evaluation to
// stop, by sqlite3_interrupt or by its progress handler.
//
// SQLite 3.40 has no sqlite3_is_interrupted, and no way to read a connection's progress handler.
// Both act on statements: a statement stepped on an interrupted connection fails with
// SQLITE_INTERRUPT, and the progress handler is called after every N virtual-machine steps of
// a statement, the statement failing with SQLITE_INTERRUPT when it asks to stop. So the probe
// steps small statements of its own: "SELECT 1" at each poll (a few steps), and, once every
// kProgressEvery of evaluation, a statement of some thousand steps, which calls the handler
// for any N up to that, and so at a bounded interval for the handlers applications set.
#pragma once

#include <chrono>

#include "extension/sqlite_api.h"

namespace datalog::ext {

// The statements a probe steps, prepared by the first probe that needs them and kept for the
// next: preparing even "SELECT 1" cost a command of one fact about a tenth of its work. A graph
// session keeps them for its connection, because SQLite disconnects virtual tables (and so
// finalizes what they keep) before it checks that a closing connection has no statements left.
class ProbeStatements {
 public:
  ProbeStatements() = default;
  ~ProbeStatements();
  ProbeStatements(const ProbeStatements&) = delete;
  ProbeStatements& operator=(const ProbeStatements&) = delete;

 private:
  friend class InterruptProbe;
  sqlite3_stmt* probe = nullptr;
  sqlite3_stmt* progress = nullptr;
};

class InterruptProbe {
 public:
  // kept: statements of db kept for many probes (null: this probe prepares its own).
  explicit InterruptProbe(sqlite3* db, ProbeStatements* kept = nullptr)
      : db_(db), statements_(kept ? kept : &own_), last_progress_(std::chrono::steady_clock::now()) {}
  InterruptProbe(const InterruptProbe&) = delete;
  InterruptProbe& operator=(const InterruptProbe&) = delete;
  bool interrupted();

  static constexpr std::chrono::milliseconds kProgressEvery{10};

 private:
  // Steps *stmt (prepared from sql on first use); true when the connection says stop.
  bool stopped_by(sqlite3_stmt** stmt, const char* sql);

  sqlite3* db_;
  ProbeStatements own_;
  ProbeStatements* statements_;
  std::chrono::steady_clock::time_point last_progress_;
};

}  // namespace datalog::ext
