// extension/io/import_rdf.h: N-Triples and Turtle into the graph (datalog_import).
//
// One reader serves both, N-Triples being a subset of Turtle. Read: IRIs <...> (with \u
// escapes; relative ones against @base), prefixed names (@prefix / PREFIX), blank nodes _:x and
// [ ... ] (nested, [] too), collections ( ... ), literals "..." '...' """...""" '''...''' (long
// ones over lines: turtle_lexer.h) with @lang or ^^datatype, bare integers, decimals, doubles
// and booleans, `a` for rdf:type, the `;` and `,` abbreviations, # comments.
// How terms become entities and values: extension/io/rdf_terms.h. Every triple is one fact
// asserted now (RDF has no valid time); a labelled blank node is one fresh entity for the whole
// file, each [ ... ] a fresh entity of its own; a collection is a chain of fresh cell entities
// (:rdf/first, :rdf/rest) ending in :rdf/nil, and () is :rdf/nil itself.
#pragma once

#include "extension/io/import_target.h"

namespace datalog::ext::io {

Status import_rdf(ImportTarget& target);

}  // namespace datalog::ext::io
