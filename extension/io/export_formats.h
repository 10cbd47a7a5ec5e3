// extension/io/export_formats.h: datalog_export's writers, one per format (one file each).
//
// Each writes from one read snapshot (the statement's: GraphReading) and returns the number of
// facts written. What each holds (docs/IMPORT-EXPORT.md):
//   - N-Triples / Turtle: the facts valid now, as triples (rdf_terms.h); no time.
//   - CSV / JSON Lines: every valid-time window of the facts as of the snapshot (e, a, v,
//     vtype, valid_from, valid_to); no transaction history.
//   - EDN: the whole log (export_history.h), which imports back into an identical graph.
#pragma once

#include <cstdint>

#include "engine/storage.h"
#include "extension/interrupt_probe.h"
#include "extension/io/output_file.h"
#include "extension/replay_progress.h"

namespace datalog::ext::io {

struct ExportContext {
  GraphReader& graph;
  OutputFile& out;
  InterruptProbe& probe;
  ReplayProgress& progress;
  std::int64_t now_ms;
};

Status export_ntriples(ExportContext& c, std::uint64_t* facts);
Status export_turtle(ExportContext& c, std::uint64_t* facts);
Status export_csv(ExportContext& c, std::uint64_t* facts);
Status export_jsonl(ExportContext& c, std::uint64_t* facts);

}  // namespace datalog::ext::io
