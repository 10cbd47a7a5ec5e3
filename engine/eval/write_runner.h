// engine/eval/write_runner.h: applies (transact ...) and (retract ...) to a graph (LANGUAGE.md
// §4, §5). Entities named by keywords or uuids become idents (created on first use); integers
// are entity ids. Valid time: the per-fact map wins over the transaction's, key by key;
// valid_from defaults to the transaction's time and valid_to to forever.
// Every assertion goes through the graph's schema (engine/schema_writer.h). An entity map
// {:db/id e :attr v ...} asserts one fact per attribute about e; without :db/id its entity is
// the one holding one of its :db.unique/identity values (upsert), else a new #uuid entity.
#pragma once

#include <cstddef>

#include "engine/ast.h"
#include "engine/status.h"
#include <functional>

#include "engine/storage.h"

namespace datalog::eval {

// interrupted (may be empty) is polled every kFactsPerPoll facts: true stops the command with
// Interrupted (the caller's transaction then writes nothing of it).
inline constexpr std::size_t kFactsPerPoll = 1024;
Status run_transact(GraphWriter& graph, const ast::Transact& t, std::size_t* datoms,
                    const std::function<bool()>& interrupted = {});
// *datoms: retractions recorded; *not_asserted: facts that were not asserted, so had nothing to
// retract (nothing is recorded for them; the command still takes its transaction).
Status run_retract(GraphWriter& graph, const ast::Retract& r, std::size_t* datoms,
                   std::size_t* not_asserted, const std::function<bool()>& interrupted = {});

}  // namespace datalog::eval
