// bench/rdf_import.h: loading an N-Triples file, ours against a plain-SQLite importer.
//
// The file is generated, shaped like FOAF data about people (a public graph's commonest shape):
// per person an rdf:type, a foaf:name string, a foaf:age integer literal and two foaf:knows links,
// five triples each, every IRI absolute (http://example.org/person/N). Ours runs
// datalog_import on it in one call. The baseline is what a SQLite user would write: read the file
// line by line, split each triple with a parser that knows only this file's forms (so it is as
// fast as a parser can be), intern subject IRIs to integer ids in a hash map, and INSERT into the
// bench's facts table (the same schema and pragmas as every other baseline) in one transaction.
// Both times include reading and parsing the file.
#pragma once

#include <string>

#include "run_context.h"

namespace bench {

// Writes `triples` triples (rounded up to whole people) to path.
void write_people_ntriples(const std::string& path, long long triples);

// Times both imports of an n-triple file; records group bulk_load, workload ntriples_import.
void measure_ntriples_import(long long n, RunContext& ctx);

}  // namespace bench
