// engine/eval/write_runner.h: applies (transact ...) and (retract ...) to a graph (LANGUAGE.md
// §4, §5). Entities named by keywords or uuids become idents (created on first use); integers
// are entity ids. Valid time: the per-fact map wins over the transaction's, key by key;
// valid_from defaults to the transaction's time and valid_to to forever.
#pragma once

#include <cstddef>

#include "engine/ast.h"
#include "engine/status.h"
#include "engine/storage.h"

namespace datalog::eval {

Status run_transact(GraphWriter& graph, const ast::Transact& t, std::size_t* datoms);
Status run_retract(GraphWriter& graph, const ast::Retract& r, std::size_t* datoms);

}  // namespace datalog::eval
