// extension/io/import_rdf.h: N-Triples and a Turtle subset into the graph (datalog_import).
//
// One reader serves both, N-Triples being a subset of Turtle. Read: IRIs <...> (with \u
// escapes; relative ones against @base), prefixed names (@prefix / PREFIX), blank nodes _:x,
// literals "..." and '...' with @lang or ^^datatype, bare integers, decimals, doubles and
// booleans, `a` for rdf:type, the `;` and `,` abbreviations, # comments. Not read (an error that
// says so): long strings ("""), anonymous blank nodes [...], collections (...).
// How terms become entities and values: extension/io/rdf_terms.h. Every triple is one fact
// asserted now (RDF has no valid time); a blank node is one fresh entity for the whole file.
#pragma once

#include "extension/io/import_target.h"

namespace datalog::ext::io {

Status import_rdf(ImportTarget& target);

}  // namespace datalog::ext::io
