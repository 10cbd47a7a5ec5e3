#include "extension/io/rdf_terms.h"

#include <array>
#include <charconv>
#include <cmath>
#include <initializer_list>

#include <fmt/format.h>

#include "engine/eval/json_text.h"
#include "engine/time_text.h"
#include "engine/uuid_text.h"
#include "extension/io/text_codec.h"

namespace datalog::ext::io {

namespace {

struct Namespace {
  std::string_view prefix, iri;
};

// Longest IRIs first where one is a prefix of another (dbp's is not dbpedia.org/resource/'s).
constexpr std::array<Namespace, 15> kNamespaces{{
    {"rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"},
    {"rdfs", "http://www.w3.org/2000/01/rdf-schema#"},
    {"xsd", "http://www.w3.org/2001/XMLSchema#"},
    {"owl", "http://www.w3.org/2002/07/owl#"},
    {"foaf", "http://xmlns.com/foaf/0.1/"},
    {"schema", "http://schema.org/"},
    {"dc", "http://purl.org/dc/elements/1.1/"},
    {"dcterms", "http://purl.org/dc/terms/"},
    {"skos", "http://www.w3.org/2004/02/skos/core#"},
    {"dbo", "http://dbpedia.org/ontology/"},
    {"dbr", "http://dbpedia.org/resource/"},
    {"dbp", "http://dbpedia.org/property/"},
    {"wd", "http://www.wikidata.org/entity/"},
    {"wdt", "http://www.wikidata.org/prop/direct/"},
    {"geo", "http://www.w3.org/2003/01/geo/wgs84_pos#"},
}};

constexpr std::string_view kXsd = "http://www.w3.org/2001/XMLSchema#";
constexpr std::string_view kDatalog = "urn:datalog:";
constexpr std::string_view kDatalogId = "urn:datalog:id:";
constexpr std::string_view kUrnUuid = "urn:uuid:";
constexpr std::string_view kKeywordType = "urn:datalog:keyword";
constexpr std::string_view kUuidType = "urn:datalog:uuid";
constexpr std::string_view kNilType = "urn:datalog:nil";

// The characters a Datalog keyword may hold after its ':' (engine/edn_reader.cpp), but '/'.
bool is_local_char(unsigned char c) {
  return std::isalnum(c) || c >= 0x80 || c == '-' || c == '_' || c == '.' || c == '?';
}

bool is_local_name(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  for (const char c : s) {
    if (!is_local_char(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// A keyword name Datalog text can spell: local chars and '/' between them.
bool is_plain_name(std::string_view s) {
  if (s.empty() || s.front() == '/' || s.back() == '/') return false;
  for (const char c : s) {
    if (c != '/' && !is_local_char(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// An absolute IRI begins with a scheme: a letter, then letters, digits, '+', '-', '.', then ':'.
bool has_scheme(std::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (std::size_t i = 1; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == ':') return true;
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

std::optional<std::int64_t> parse_date_time(std::string_view text) {
  std::string s(text);
  std::int64_t offset_ms = 0;
  if (s.size() == 10) return parse_instant(s).ms;  // xsd:date
  // A trailing offset "+HH:MM" / "-HH:MM" is applied; no zone at all is read as UTC.
  if (s.size() > 6 && (s[s.size() - 6] == '+' || s[s.size() - 6] == '-') && s[s.size() - 3] == ':') {
    int hours = 0, minutes = 0;
    if (!parse_number(std::string_view(s).substr(s.size() - 5, 2), &hours) ||
        !parse_number(std::string_view(s).substr(s.size() - 2, 2), &minutes)) {
      return std::nullopt;
    }
    offset_ms = (hours * 60 + minutes) * 60000LL * (s[s.size() - 6] == '-' ? -1 : 1);
    s.resize(s.size() - 6);
    s += 'Z';
  } else if (s.empty() || s.back() != 'Z') {
    s += 'Z';
  }
  const auto ms = parse_instant(s).ms;
  if (!ms) return std::nullopt;
  return *ms - offset_ms;
}

std::string typed(std::string_view lexical, std::string_view type) {
  return fmt::format("{}^^{}", quoted_string(lexical), iri_ref(type));
}

std::string xsd(std::string_view local) { return std::string(kXsd) + std::string(local); }

// The parts one after another: an import names every entity this way, and fmt::format took
// several times what the copies do.
std::string joined(std::initializer_list<std::string_view> parts) {
  std::size_t size = 0;
  for (const std::string_view part : parts) size += part.size();
  std::string out;
  out.reserve(size);
  for (const std::string_view part : parts) out.append(part);
  return out;
}

}  // namespace

Value entity_of_iri(std::string_view iri) {
  for (const Namespace& ns : kNamespaces) {
    if (starts_with(iri, ns.iri) && is_local_name(iri.substr(ns.iri.size()))) {
      return Value::keyword(joined({":", ns.prefix, "/", iri.substr(ns.iri.size())}));
    }
  }
  if (starts_with(iri, kDatalogId)) {
    std::int64_t id = 0;
    if (parse_number(iri.substr(kDatalogId.size()), &id)) return Value::integer(id);
  }
  if (starts_with(iri, kUrnUuid)) {
    if (auto u = parse_uuid(iri.substr(kUrnUuid.size()))) return Value::uuid(*u);
  }
  if (starts_with(iri, kDatalog) && is_plain_name(iri.substr(kDatalog.size()))) {
    return Value::keyword(joined({":", iri.substr(kDatalog.size())}));
  }
  return Value::keyword(joined({":", iri}));
}

std::string iri_of_keyword(std::string_view keyword) {
  const std::string_view name = keyword.substr(1);
  const std::size_t slash = name.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view prefix = name.substr(0, slash), local = name.substr(slash + 1);
    for (const Namespace& ns : kNamespaces) {
      if (ns.prefix == prefix && is_local_name(local)) return fmt::format("{}{}", ns.iri, local);
    }
  }
  if (is_plain_name(name)) return fmt::format("{}{}", kDatalog, name);
  if (has_scheme(name)) return std::string(name);
  return fmt::format("{}{}", kDatalog, name);  // read back as the whole IRI: see the header
}

std::string iri_of_entity(EntityId id, const std::optional<Value>& ident) {
  if (ident && ident->is(ValueKind::Keyword)) return iri_of_keyword(ident->as_keyword());
  if (ident && ident->is(ValueKind::Uuid)) return fmt::format("{}{}", kUrnUuid, format_uuid(ident->as_uuid()));
  return fmt::format("{}{}", kDatalogId, id);
}

std::optional<Value> literal_value(std::string_view lexical, std::string_view datatype,
                                   std::string* error) {
  auto bad = [&](std::string_view what) -> std::optional<Value> {
    *error = fmt::format("\"{}\" is not a valid {}", lexical, what);
    return std::nullopt;
  };
  if (datatype.empty()) return Value::string(std::string(lexical));
  if (starts_with(datatype, kXsd)) {
    const std::string_view t = datatype.substr(kXsd.size());
    if (t == "string") return Value::string(std::string(lexical));
    if (t == "integer" || t == "int" || t == "long" || t == "short" || t == "byte" ||
        t == "nonNegativeInteger" || t == "positiveInteger" || t == "negativeInteger" ||
        t == "nonPositiveInteger" || t == "unsignedLong" || t == "unsignedInt" ||
        t == "unsignedShort" || t == "unsignedByte" || t == "gYear") {
      std::int64_t i = 0;
      if (!parse_number(lexical, &i)) return bad(fmt::format("xsd:{} (a 64-bit integer)", t));
      return Value::integer(i);
    }
    if (t == "double" || t == "float" || t == "decimal") {
      if (lexical == "INF") return Value::floating(HUGE_VAL);
      if (lexical == "-INF") return Value::floating(-HUGE_VAL);
      double d = 0;
      if (!parse_number(lexical, &d) || std::isnan(d)) return bad(fmt::format("xsd:{}", t));
      return Value::floating(d);
    }
    if (t == "boolean") {
      if (lexical == "true" || lexical == "1") return Value::boolean(true);
      if (lexical == "false" || lexical == "0") return Value::boolean(false);
      return bad("xsd:boolean");
    }
    if (t == "dateTime" || t == "dateTimeStamp" || t == "date") {
      const auto ms = parse_date_time(lexical);
      if (!ms) return bad(fmt::format("xsd:{} (years 0000 to 9999)", t));
      return Value::instant(*ms);
    }
    if (t == "hexBinary") {
      auto bytes = hex_decode(lexical);
      if (!bytes) return bad("xsd:hexBinary");
      return Value::bytes(std::move(*bytes));
    }
    return Value::string(std::string(lexical));
  }
  if (datatype == kKeywordType) {
    if (lexical.size() < 2 || lexical.front() != ':') return bad("keyword (':name')");
    return Value::keyword(std::string(lexical));
  }
  if (datatype == kUuidType) {
    const auto u = parse_uuid(lexical);
    if (!u) return bad("uuid");
    return Value::uuid(*u);
  }
  if (datatype == kNilType) return Value::nil();
  return Value::string(std::string(lexical));
}

std::string literal_of_value(const Value& v) {
  switch (v.kind()) {
    case ValueKind::String: return quoted_string(v.as_string());
    case ValueKind::Integer: return typed(fmt::format("{}", v.as_integer()), xsd("integer"));
    case ValueKind::Float: {
      const double d = v.as_float();
      if (std::isinf(d)) return typed(d > 0 ? "INF" : "-INF", xsd("double"));
      return typed(fmt::format("{}", d), xsd("double"));  // shortest text that reads back exactly
    }
    case ValueKind::Boolean: return typed(v.as_boolean() ? "true" : "false", xsd("boolean"));
    case ValueKind::Instant: return typed(format_instant(v.as_instant()), xsd("dateTime"));
    case ValueKind::Uuid: return typed(format_uuid(v.as_uuid()), kUuidType);
    case ValueKind::Keyword: return typed(v.as_keyword(), kKeywordType);
    case ValueKind::Bytes: return typed(hex_encode(v.as_bytes()), xsd("hexBinary"));
    case ValueKind::Nil: return typed("", kNilType);
    case ValueKind::Ref: break;  // the caller writes the entity's IRI
  }
  return quoted_string("");
}

std::string iri_ref(std::string_view iri) {
  std::string out = "<";
  for (const char c : iri) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || c == '<' || c == '>' || c == '"' || c == '{' || c == '}' || c == '|' ||
        c == '^' || c == '`' || c == '\\') {
      out += fmt::format("\\u{:04X}", u);
    } else {
      out += c;
    }
  }
  return out + ">";
}

std::string quoted_string(std::string_view s) {
  // JSON's escapes (\" \\ \n \r \t \b \f \u00XX) are all N-Triples escapes too.
  std::string out;
  eval::append_json_string(out, s);
  return out;
}

}  // namespace datalog::ext::io
