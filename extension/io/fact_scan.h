// extension/io/fact_scan.h: the facts datalog_export writes, read from one snapshot.
//
// Every datom visible in `view` (EAVT order: an entity's facts together), with the idents of
// its entity and attribute, and of the entity a ref value names. Idents are looked up once per
// entity in a bounded cache. Polls for sqlite3_interrupt and shows progress every kCheckEvery
// facts.
#pragma once

#include <functional>
#include <optional>

#include "engine/storage.h"
#include "extension/interrupt_probe.h"
#include "extension/replay_progress.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::ext::io {

using store::Status;

struct ScannedFact {
  const Datom& datom;
  const std::optional<Value>& entity_ident;
  const Value& attribute;  // the attribute's keyword
  // The ident of the entity a ref value names (nullopt: none, or v is not a ref).
  const std::optional<Value>& ref_ident;
};

class FactScan {
 public:
  FactScan(GraphReader& graph, InterruptProbe& probe, ReplayProgress& progress)
      : graph_(graph), probe_(probe), progress_(progress) {}
  Status run(const TimeView& view, const std::function<Status(const ScannedFact&)>& each);
  std::uint64_t facts() const { return facts_; }

 private:

  GraphReader& graph_;
  InterruptProbe& probe_;
  ReplayProgress& progress_;
  std::uint64_t facts_ = 0;
};

}  // namespace datalog::ext::io
