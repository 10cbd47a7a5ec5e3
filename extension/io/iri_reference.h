// extension/io/iri_reference.h: relative IRI references resolved against a base, the way RFC
// 3986 (section 5.2) resolves URI references: "../d" against "http://ex.org/a/b/c" is
// "http://ex.org/a/d", "#x" keeps the base's path and query, "//host/p" keeps only its scheme.
// Turtle's <...> and @base use it. Works on text only: no percent-decoding, no normalization of
// case, so equal IRIs stay equal as text.
#pragma once

#include <string>
#include <string_view>

namespace datalog::ext::io {

// Whether reference starts with a scheme ("http:", "urn:"), i.e. is already absolute.
bool has_scheme(std::string_view reference);

// Whether resolve_iri gives reference back unchanged whatever the base: it has a scheme and no
// dot segments, as every IRI of N-Triples. Lets a reader keep the text it has instead of a copy.
bool resolves_to_itself(std::string_view reference);

// reference resolved against base; a reference with a scheme, or any reference when base is
// empty, comes back as it is (only its dot segments removed when it has a scheme).
std::string resolve_iri(std::string_view base, std::string_view reference);

}  // namespace datalog::ext::io
