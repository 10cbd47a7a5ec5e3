// extension/session_reader.h: a GraphReader (engine/storage.h) over a session, for the length of
// one SQL call: the session's write transaction when one is open (read-your-writes), else the
// session's shared snapshot, held until this object goes (so it never pins pages longer).
#pragma once

#include <memory>
#include <optional>

#include "extension/graph_session.h"
#include "extension/sqlite_api.h"
#include "lmdb_store/graph_access.h"

namespace datalog::ext {

class GraphReading {
 public:
  static Status open(GraphSession& session, std::unique_ptr<GraphReading>* out);
  // The same in place: a query table's cursor opens one per call without an allocation.
  static Status open(GraphSession& session, std::optional<GraphReading>* out);
  store::GraphAccess& access() { return *access_; }

  // The graph's rules, parsed (engine/script_runner.h load_rules). On a snapshot the session
  // keeps them for the committed state; in a write transaction, which may change them, they are
  // read afresh.
  Status rules(GraphSession::Rules* out);

 private:
  Status start(GraphSession& session);

  GraphSession* session_ = nullptr;
  std::shared_ptr<store::ReadSnapshot> snapshot_;
  GraphSession::Visible visible_;  // what the statement's SQL snapshot sees of the log
  std::optional<store::GraphAccess> access_;
};

}  // namespace datalog::ext
