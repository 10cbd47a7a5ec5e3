#include "extension/io/edn_pieces.h"

#include <charconv>

#include <fmt/format.h>

namespace datalog::ext::io {

namespace {

bool opens(char c) { return c == '[' || c == '{' || c == '('; }
bool closes(char c) { return c == ']' || c == '}' || c == ')'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

}  // namespace

Status split_edn(InputFile& file, const EdnPieceHandler& handler) {
  enum class Mode { Top, Vector, Map } mode = Mode::Top;
  int depth = 0;  // brackets open, the top-level form's included
  bool in_string = false;
  std::string piece, line;
  std::uint64_t piece_line = 0, form_line = 0, element_line = 0, string_line = 0;
  std::size_t elements = 0;
  auto flush_elements = [&]() -> Status {
    if (elements == 0) return Status::OK();
    elements = 0;
    const Status st = handler.elements(piece, piece_line);
    piece.clear();
    return st;
  };
  while (file.next_line(&line)) {
    const std::uint64_t n = file.line_number();
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (in_string) {
        piece += c;
        if (c == '\\' && i + 1 < line.size()) {
          piece += line[++i];
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == ';') break;  // a comment, to the end of the line
      if (mode == Mode::Top) {
        if (is_space(c)) continue;
        form_line = n;
        depth = 1;
        if (c == '[') {
          mode = Mode::Vector;
        } else if (c == '{') {
          mode = Mode::Map;
          piece.assign(1, c);
        } else {
          return file.error_at(n, fmt::format("expected a vector of transaction data [...] or a "
                                              "history map {{...}} at the top level, got '{}'", c));
        }
        continue;
      }
      if (mode == Mode::Vector && depth == 1) {
        if (is_space(c)) {
          if (elements > 0) piece += c;
          continue;
        }
        if (c == ']') {
          DATALOG_RETURN_IF_ERROR(flush_elements());
          DATALOG_RETURN_IF_ERROR(handler.vector_end());
          mode = Mode::Top;
          depth = 0;
          continue;
        }
        if (c != '[' && c != '{') {
          return file.error_at(n, fmt::format("expected a fact [e a v] or an entity map {{...}} in "
                                              "the transaction vector, got '{}'", c));
        }
        if (elements == 0 && piece.empty()) piece_line = n;
        element_line = n;
      }
      piece += c;
      if (c == '"') {
        in_string = true;
        string_line = n;
      } else if (opens(c)) {
        ++depth;
      } else if (closes(c)) {
        --depth;
        if (mode == Mode::Vector && depth == 1) {
          if (++elements >= kElementsPerPiece) DATALOG_RETURN_IF_ERROR(flush_elements());
        } else if (mode == Mode::Map && depth == 0) {
          DATALOG_RETURN_IF_ERROR(handler.map(piece, form_line));
          piece.clear();
          mode = Mode::Top;
        }
      }
    }
    if (mode != Mode::Top && !piece.empty()) piece += '\n';
  }
  DATALOG_RETURN_IF_ERROR(file.status());
  if (mode != Mode::Top) {
    if (in_string) return file.error_at(string_line, "unterminated string (the file ends inside it)");
    return file.error_at(mode == Mode::Vector && depth > 1 ? element_line : form_line,
                         "unterminated form (the file ends before its closing bracket)");
  }
  return Status::OK();
}

Status edn_error_in_file(const InputFile& file, std::uint64_t first_line, const Status& st) {
  const std::string& m = st.message();
  constexpr std::string_view kAt = "at line ";
  const std::size_t at = m.find(kAt);
  if (at == std::string::npos) {
    return Status(st.code(), fmt::format("datalog_import: {} line {}: {}", file.display_name(), first_line, m));
  }
  std::uint64_t line = 0;
  const char* digits = m.data() + at + kAt.size();
  const auto [end, ec] = std::from_chars(digits, m.data() + m.size(), line);
  if (ec != std::errc()) line = 1;
  const std::size_t colon = m.find(": ", at);
  const std::string rest = colon == std::string::npos ? m : m.substr(colon + 2);
  (void)end;
  return Status(st.code(), fmt::format("datalog_import: {} line {}: {}", file.display_name(),
                                       first_line + line - 1, rest));
}

}  // namespace datalog::ext::io
