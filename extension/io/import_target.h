// extension/io/import_target.h: what every reader of datalog_import writes into.
//
// An import is one write of the graph (extension/script_host.h): inside BEGIN ... COMMIT it
// joins the caller's transaction in a private savepoint, so a failing import undoes only
// itself; in autocommit mode it is a transaction of its own, committed after the last check
// (an interrupt included). Either way an error leaves the graph as it was.
//
// Facts go through the same path as (transact [...]) (engine/eval/write_runner.h): idents are
// made on first use and the graph's schema is enforced. They are buffered and written every
// kBatchFacts facts, between entities, so an entity map is never split; each write polls for
// sqlite3_interrupt and updates the progress line. In autocommit mode the index commits part
// way once the pages a write changed pass the connection's write_memory_mb
// (SessionScriptHost::checkpoint), so memory stays bounded however large the file.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ast.h"
#include "extension/interrupt_probe.h"
#include "extension/io/input_file.h"
#include "extension/replay_progress.h"
#include "extension/script_host.h"

namespace datalog::ext::io {

class ImportTarget {
 public:
  static constexpr std::size_t kBatchFacts = 4096;

  ImportTarget(SessionScriptHost& host, InputFile& file, InterruptProbe& probe,
               ReplayProgress& progress)
      : host_(host), file_(file), probe_(probe), progress_(progress) {}

  Status begin();
  // Ends the write with the reader's outcome: kept when it is ok (and committed in autocommit
  // mode), else undone. Returns the first error.
  Status finish(Status outcome);
  // EDN: each top-level vector is a transaction of its own in autocommit mode (one counter
  // each, as separate (transact ...) commands would have); inside BEGIN they share one.
  Status next_transaction();

  GraphWriter& writer() { return *writer_; }
  InputFile& file() { return file_; }

  // A fact read at `line` of the file; entity map facts share an entity_map index < 0 here.
  void add(ast::Fact fact) { batch_.facts.push_back(std::move(fact)); }
  // Called between entities: writes the batch once it is full.
  Status entity_done();
  Status flush();
  // A parsed (transact [...]) of the file, written at once.
  Status transact(const ast::Transact& t);
  // The entity of blank node `label` of this file: a new random #uuid ident the first time.
  Status blank_node(std::string_view label, EntityId* out);
  // A blank node without a label (Turtle's [ ... ], a collection's cell): a new random #uuid
  // ident, not remembered.
  Status fresh_blank_node(EntityId* out);

  std::uint64_t facts_written() const { return written_; }

 private:
  Status check_in();

  SessionScriptHost& host_;
  InputFile& file_;
  InterruptProbe& probe_;
  ReplayProgress& progress_;
  GraphWriter* writer_ = nullptr;
  ast::Transact batch_;
  std::uint64_t written_ = 0;
  std::unordered_map<std::string, EntityId> blank_nodes_;
};

}  // namespace datalog::ext::io
