// extension/io/edn_pieces.h: an EDN file cut into pieces small enough to parse one at a time.
//
// The engine's EDN reader (engine/edn_reader.h) reads a whole text; an import file may be far
// larger than memory should hold. So the file is scanned (strings, escapes and ; comments
// understood, brackets counted) and handed over in pieces:
//   - a top-level map {...}: whole (the header and the rows of a history file);
//   - a top-level vector [...] (transaction data): its elements, kElementsPerPiece at a time,
//     with their exact text, then the vector's end.
// Each piece says the file line it begins on, so a parse error in it names the file's line.
#pragma once

#include <functional>
#include <string>

#include "extension/io/input_file.h"

namespace datalog::ext::io {

struct EdnPieceHandler {
  std::function<Status(const std::string& text, std::uint64_t line)> map;
  std::function<Status(const std::string& text, std::uint64_t line)> elements;
  std::function<Status()> vector_end;
};

inline constexpr std::size_t kElementsPerPiece = 2048;

Status split_edn(InputFile& file, const EdnPieceHandler& handler);

// A parse error of the engine ("parse error at line L, column C: M") in a piece that begins on
// file line first_line, as "datalog_import: <file> line N: M".
Status edn_error_in_file(const InputFile& file, std::uint64_t first_line, const Status& st);

}  // namespace datalog::ext::io
