// extension/io/history_edn.h: a graph's whole history as EDN — its log, row by row — written by
// datalog_export(graph, 'x.edn') and read back by datalog_import into an empty graph, which
// then is identical: the same transaction counters and times, entity ids, idents, facts with
// their valid times, retractions and rules (as-of and valid-time queries answer the same).
//
//   {:datalog/history 1 :rows 3 :last-tx 2}
//   {:seq 1 :tx 1 :tx-time 1718000000000
//    :records [[:ident 4503599627370496 :alice]
//              [:assert 4503599627370496 4503599627370497 "Alice" 1718000000000 9223372036854775807]
//              [:rule "reach" "(rule [(reach ?a ?b) [?a :friend ?b]])"]]}
//   {:seq 2 :tx 2 :tx-time 1718000050000 :records [[:retract 4503599627370496 4503599627370497 "Alice"]]}
//
// One map per log row (lmdb_store/log_records.h): :seq its position, :tx the counter, :tx-time
// its wall time in ms; :records what the transaction did, in order: [:ident id name], [:assert e
// a v valid-from valid-to] (ms; valid-to 9223372036854775807 is forever), [:retract e a v],
// [:rule name source], [:unrule name], [:counter] (a counter consumed by elided retractions).
// Entities and attributes are entity ids (an :ident record names them). Values are EDN: strings,
// integers, floats, true/false, nil, #inst, #uuid, keywords; a ref is {:ref id}, bytes
// {:bytes "hex"}, a float EDN cannot spell (1e-300, ##Inf) {:float "text"}.
#pragma once

#include <cstdint>
#include <string>

#include "extension/graph_log.h"
#include "extension/interrupt_probe.h"
#include "extension/io/input_file.h"
#include "extension/io/output_file.h"
#include "extension/replay_progress.h"

namespace datalog::ext::io {

inline constexpr std::string_view kHistoryKey = ":datalog/history";

// Writes every row of the log through its row `through` (one snapshot: rows are only ever
// appended). *facts: assertions and retractions written.
Status export_history(GraphLog& log, std::uint64_t through, OutputFile& out, InterruptProbe& probe,
                      ReplayProgress& progress, std::uint64_t* facts);

// Whether the file at path is a history (its first form is {:datalog/history ...}).
bool is_history_file(const std::string& path);

// Reads a history file as log rows for import_log_rows (log_rows_import.h); *facts: assertions
// and retractions read.
Status read_history(InputFile& file, InterruptProbe& probe, ReplayProgress& progress,
                    const std::function<Status(store::LogRow&)>& sink, std::uint64_t* facts);

}  // namespace datalog::ext::io
