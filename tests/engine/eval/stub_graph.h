// tests/engine/eval/stub_graph.h: a GraphReader for unit tests. It answers what a test does not
// care about: the idents it was given and no others, no names for entities, transaction 0 at
// time 0, no rules. A test graph derives from it and overrides what it reads (scans, estimates).
#pragma once

#include <map>
#include <string>
#include <utility>

#include "engine/storage.h"

namespace datalog::eval {

class StubGraph : public GraphReader {
 public:
  explicit StubGraph(std::map<std::string, EntityId> idents) : idents_(std::move(idents)) {}

  Status entity_of(const Value& ident, std::optional<EntityId>* out) override {
    const auto it = idents_.find(ident.to_edn());
    *out = it == idents_.end() ? std::nullopt : std::optional<EntityId>(it->second);
    return Status::OK();
  }
  Status ident_of(EntityId, std::optional<Value>* out) override {
    *out = std::nullopt;
    return Status::OK();
  }
  Status tx_as_of_time(std::int64_t, std::uint64_t* tx) override {
    *tx = 0;
    return Status::OK();
  }
  Status tx_time(std::uint64_t, std::int64_t* ms) override {
    *ms = 0;
    return Status::OK();
  }
  Status rules(std::vector<StoredRule>* out) override {
    out->clear();
    return Status::OK();
  }

 private:
  std::map<std::string, EntityId> idents_;
};

}  // namespace datalog::eval
