// extension/script_host.h: how datalog_exec's writes join SQLite's transaction.
//
// - Inside a transaction (BEGIN ... COMMIT, or a statement already writing the graph): the
//   graph's store table is enlisted in it (so COMMIT commits the graph, ROLLBACK discards it,
//   savepoints nest), and each command runs inside a private savepoint, so a failing command
//   undoes only itself and the error reaches the caller.
// - In autocommit mode: each transact / retract / rule is a graph transaction of its own — one
//   transaction counter per command, as in Minigraf, so `:as-of N` in a script means what it
//   means there — but nothing is committed until the caller calls commit() after its last
//   check (an interrupt included): then the log rows go into the database in one autocommit
//   statement (SQLite's commit is the commit) and the index follows. Any error before that, or
//   a host destroyed without it, leaves the graph as it was: an error never means "partly
//   written". (An SQL transaction of the host's own could not be rolled back once an interrupt
//   has come: SQLite refuses every statement of the connection until the running one ends.)
//   A long one commits the index part way between two writes (checkpoint(), after each command
//   and each batch of an import) once its changed pages pass set_page_bytes; inside an SQL
//   transaction, between two commands when no savepoint is open.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "engine/script_runner.h"
#include "extension/session_reader.h"
#include "extension/interrupt_probe.h"
#include "extension/graph_session.h"
#include "extension/sqlite_api.h"

namespace datalog::ext {

class SessionScriptHost final : public ScriptHost {
 public:
  SessionScriptHost(sqlite3* db, GraphSession& session, std::string qualified_table)
      : db_(db), session_(session), table_(std::move(qualified_table)) {}
  ~SessionScriptHost() override;

  Status begin_write(GraphWriter** writer) override;
  Status end_write(bool success) override;
  Status reader(GraphReader** reader) override;
  // Commits what the commands wrote in autocommit mode (nothing to do inside a transaction,
  // whose COMMIT commits them), after the last check: an interrupt that came while they ran
  // will fail the statement, so then nothing may be committed.
  Status commit(InterruptProbe& probe);
  // The changed index pages the transaction may hold (ConnectionContext::write_page_bytes); by
  // default it holds them all until it commits.
  void set_page_bytes(std::size_t bytes) { page_bytes_ = bytes; }
  // Between two writes of a long transaction of its own (an import's batches): once its changed
  // index pages pass the bound, the index commits part way (store::WriteTxn::commit_interim),
  // so they need not all stay in memory. *writer is replaced. Inside an SQL transaction nothing
  // happens here: the write runs in a savepoint that a failure must be able to roll back.
  Status checkpoint(GraphWriter** writer);
  // A reader that stays valid until the next call (for naming entities in results).
  GraphReader* last_reader() { return reading_ ? &reading_->access() : nullptr; }

 private:
  Status enlist();

  static constexpr int kPrivateSavepoint = 1 << 20;  // above any SQLite savepoint level
  sqlite3* db_;
  GraphSession& session_;
  std::string table_;
  bool own_transaction_ = false;
  std::size_t page_bytes_ = std::numeric_limits<std::size_t>::max();
  bool past_page_bound();
  std::optional<store::GraphAccess> writer_access_;
  std::unique_ptr<GraphReading> reading_;
};

}  // namespace datalog::ext
