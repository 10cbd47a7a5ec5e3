#include "extension/io/file_formats.h"

namespace datalog::ext::io {

std::optional<FileFormat> format_named(std::string_view name) {
  std::string n(name);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "nt" || n == "ntriples" || n == "n-triples") return FileFormat::NTriples;
  if (n == "ttl" || n == "turtle") return FileFormat::Turtle;
  if (n == "csv") return FileFormat::Csv;
  if (n == "edn") return FileFormat::Edn;
  if (n == "jsonl" || n == "ndjson" || n == "json-lines") return FileFormat::JsonLines;
  return std::nullopt;
}

std::optional<FileFormat> format_of_path(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  const std::size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return std::nullopt;
  return format_named(path.substr(dot + 1));
}

const char* known_formats() { return "'nt', 'ttl', 'csv', 'edn' or 'jsonl'"; }

}  // namespace datalog::ext::io
