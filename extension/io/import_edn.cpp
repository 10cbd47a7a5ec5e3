#include "extension/io/import_edn.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "engine/parser.h"
#include "extension/io/edn_pieces.h"

namespace datalog::ext::io {

namespace {

// Transaction data parsed by the engine's own (transact ...): the valid-time map before a
// vector, if any, is transact's options map, with its rules and messages. text_line: the file's
// line of the parsed text's first line (the map's line when checking a map alone; for elements,
// their vector's line less the map's line breaks, which come before them in the parsed text).
Status parse_transact(const InputFile& file, std::string_view options, const std::string& elements,
                      std::uint64_t text_line, ast::Transact* out) {
  std::vector<ast::Command> commands;
  const Status parsed = parse_script(fmt::format("(transact {} [{}])", options, elements), &commands);
  if (!parsed.ok()) return edn_error_in_file(file, text_line, parsed);
  *out = std::move(std::get<ast::Transact>(commands.front()));
  for (ast::Fact& f : out->facts) f.pos.line = static_cast<int>(text_line) + f.pos.line - 1;
  return Status::OK();
}

}  // namespace

Status import_edn_transactions(ImportTarget& target) {
  InputFile& file = target.file();
  bool wrote = false;
  // A valid-time map read and not yet followed by its vector: its text and its line.
  std::optional<std::string> options;
  std::uint64_t options_line = 0;
  auto no_vector_after = [&] {
    return file.error_at(options_line, "Transact with options requires a facts vector after the map");
  };
  EdnPieceHandler handler;
  handler.map = [&](const std::string& text, std::uint64_t line) -> Status {
    if (options) return no_vector_after();
    // Checked now, with an empty vector, so a bad map is named at its own line.
    ast::Transact checked;
    DATALOG_RETURN_IF_ERROR(parse_transact(file, text, "", line, &checked));
    options = text;
    options_line = line;
    return Status::OK();
  };
  handler.elements = [&](const std::string& text, std::uint64_t line) -> Status {
    ast::Transact t;
    const std::string_view map = options ? std::string_view(*options) : std::string_view();
    const auto map_breaks = static_cast<std::uint64_t>(std::count(map.begin(), map.end(), '\n'));
    DATALOG_RETURN_IF_ERROR(parse_transact(file, map, text, line - map_breaks, &t));
    wrote = true;
    return target.transact(t);
  };
  handler.vector_end = [&]() -> Status {
    options.reset();
    if (!wrote) return Status::OK();
    wrote = false;
    return target.next_transaction();
  };
  DATALOG_RETURN_IF_ERROR(split_edn(file, handler));
  return options ? no_vector_after() : Status::OK();
}

}  // namespace datalog::ext::io
