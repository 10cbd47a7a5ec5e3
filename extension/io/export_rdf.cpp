// N-Triples and Turtle: the facts valid now, one triple each (rdf_terms.h says how entities
// and values are written). Turtle is written as N-Triples are, an entity's facts grouped with ';'.
#include <fmt/format.h>

#include "extension/io/export_formats.h"
#include "extension/io/fact_scan.h"
#include "extension/io/rdf_terms.h"

namespace datalog::ext::io {

namespace {

Status export_triples(ExportContext& c, bool group_subjects, std::uint64_t* facts) {
  TimeView now;
  now.valid_at = c.now_ms;
  FactScan scan(c.graph, c.probe, c.progress);
  std::string line, subject;
  EntityId last_e = -1;
  bool open_statement = false;
  DATALOG_RETURN_IF_ERROR(scan.run(now, [&](const ScannedFact& f) {
    const Datom& d = f.datom;
    line.clear();
    if (d.e != last_e || !group_subjects) {
      if (open_statement) c.out.write(" .\n");
      subject = iri_ref(iri_of_entity(d.e, f.entity_ident));
      line = subject;
      last_e = d.e;
    } else {
      line = " ;\n   ";
    }
    line += ' ';
    line += iri_ref(iri_of_keyword(f.attribute.as_keyword()));
    line += ' ';
    line += d.v.is(ValueKind::Ref) ? iri_ref(iri_of_entity(d.v.as_ref(), f.ref_ident)) : literal_of_value(d.v);
    if (!group_subjects) line += " .\n";
    open_statement = group_subjects;
    c.out.write(line);
    return Status::OK();
  }));
  if (open_statement) c.out.write(" .\n");
  *facts = scan.facts();
  return Status::OK();
}

}  // namespace

Status export_ntriples(ExportContext& c, std::uint64_t* facts) { return export_triples(c, false, facts); }
Status export_turtle(ExportContext& c, std::uint64_t* facts) { return export_triples(c, true, facts); }

}  // namespace datalog::ext::io
