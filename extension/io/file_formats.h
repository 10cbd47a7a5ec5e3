// extension/io/file_formats.h: the formats datalog_import and datalog_export know, by name or by
// the file's extension.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace datalog::ext::io {

enum class FileFormat { NTriples, Turtle, Csv, Edn, JsonLines };

// 'nt' / 'ntriples', 'ttl' / 'turtle', 'csv', 'edn', 'jsonl' / 'ndjson' (any case).
std::optional<FileFormat> format_named(std::string_view name);
// From the path's extension: .nt .ttl .csv .edn .jsonl .ndjson.
std::optional<FileFormat> format_of_path(std::string_view path);
const char* known_formats();  // for messages

}  // namespace datalog::ext::io
