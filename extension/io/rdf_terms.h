// extension/io/rdf_terms.h: how RDF terms map to the graph's entities and values, both ways
// (docs/IMPORT-EXPORT.md, "RDF"). The mapping depends only on the term, never on the syntax or
// on a file's @prefix lines, so one RDF graph gives one Datalog graph whether it came as
// N-Triples or Turtle.
//
// IRIs (subjects, predicates, objects):
//   - in a well-known namespace (rdf, rdfs, xsd, owl, foaf, schema, dc, dcterms, skos, dbo, dbr,
//     dbp, wd, wdt) with a local name of keyword characters: the keyword :prefix/local
//     (<http://xmlns.com/foaf/0.1/name> -> :foaf/name);
//   - urn:datalog:NAME -> :NAME (what the export writes for keywords outside those namespaces);
//   - urn:datalog:id:N -> the integer entity id N (an entity without an ident);
//   - urn:uuid:U -> the #uuid U ident;
//   - any other IRI: the keyword whose name is the whole IRI (:http://example.org/alice), which
//     SQL can name (e = ':http://example.org/alice') though Datalog text cannot.
// A subject is that entity; a predicate that attribute (a keyword); an object IRI a reference to
// that entity. Literals: see literal_value below.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/value.h"

namespace datalog::ext::io {

// The entity an IRI names: a Keyword, Uuid or Integer value (an entity of transact).
Value entity_of_iri(std::string_view iri);

// The IRI of an entity: its ident's (a keyword or uuid) when it has one, else urn:datalog:id:N.
std::string iri_of_entity(EntityId id, const std::optional<Value>& ident);
std::string iri_of_keyword(std::string_view keyword);  // keyword text with its ':'

// A literal's value from its lexical form, datatype IRI (empty: xsd:string) and language tag:
// xsd:integer and its subtypes -> integer; xsd:double, float, decimal -> float; xsd:boolean ->
// boolean; xsd:dateTime, xsd:date -> instant (UTC; an offset is applied); xsd:hexBinary ->
// bytes; the urn:datalog:keyword, uuid and nil types the export writes -> those kinds; a
// language-tagged string -> the string (the tag is dropped); any other datatype -> the lexical
// form as a string. nullopt with *error when the lexical form is not of its type.
std::optional<Value> literal_value(std::string_view lexical, std::string_view datatype,
                                   std::string* error);

// A value as an N-Triples object: a typed literal (refs are written by the caller as IRIs).
std::string literal_of_value(const Value& v);

// N-Triples escapes: "<iri>" and "\"string\"" with \uXXXX / \" \\ \n \r \t where needed.
std::string iri_ref(std::string_view iri);
std::string quoted_string(std::string_view s);

}  // namespace datalog::ext::io
