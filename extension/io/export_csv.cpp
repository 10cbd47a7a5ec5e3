// CSV: e,a,v,vtype,valid_from,valid_to, one row per valid-time window of each fact as of the
// snapshot (what import_csv reads back as facts). Times are ISO text; an open end is empty.
#include <fmt/format.h>

#include "engine/time_text.h"
#include "extension/io/csv_records.h"
#include "extension/io/export_formats.h"
#include "extension/io/fact_scan.h"
#include "extension/io/typed_text.h"

namespace datalog::ext::io {

Status export_csv(ExportContext& c, std::uint64_t* facts) {
  TimeView all_windows;
  all_windows.any_valid_time = true;
  FactScan scan(c.graph, c.probe, c.progress);
  c.out.write("e,a,v,vtype,valid_from,valid_to\n");
  std::string line;
  DATALOG_RETURN_IF_ERROR(scan.run(all_windows, [&](const ScannedFact& f) {
    const Datom& d = f.datom;
    line.clear();
    append_csv_field(line, entity_text(d.e, f.entity_ident), true);
    append_csv_field(line, f.attribute.as_keyword(), false);
    append_csv_field(line, value_text(d.v, f.ref_ident), false);
    append_csv_field(line, kind_name(d.v.kind()), false);
    append_csv_field(line, format_instant(d.valid_from), false);
    append_csv_field(line, d.valid_to == kForever ? std::string() : format_instant(d.valid_to), false);
    line += '\n';
    c.out.write(line);
    return Status::OK();
  }));
  *facts = scan.facts();
  return Status::OK();
}

}  // namespace datalog::ext::io
