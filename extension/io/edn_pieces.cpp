#include "extension/io/edn_pieces.h"

#include <charconv>

#include <fmt/format.h>

namespace datalog::ext::io {

namespace {

bool opens(char c) { return c == '[' || c == '{' || c == '('; }
bool closes(char c) { return c == ']' || c == '}' || c == ')'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

// One scan of a file: where it stands among the top-level forms, and the piece it gathers.
class EdnSplitter {
 public:
  EdnSplitter(InputFile& file, const EdnPieceHandler& handler) : file_(file), handler_(handler) {}

  Status run() {
    std::string line;
    while (file_.next_line(&line)) {
      DATALOG_RETURN_IF_ERROR(read_line(line, file_.line_number()));
      if (mode_ != Mode::Top && !piece_.empty()) piece_ += '\n';
    }
    DATALOG_RETURN_IF_ERROR(file_.status());
    return check_closed();
  }

 private:
  enum class Mode { Top, Vector, Map };

  // Line n of the file, without its end.
  Status read_line(const std::string& line, std::uint64_t n) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (in_string_) {
        piece_ += c;
        if (c == '\\' && i + 1 < line.size()) {
          piece_ += line[++i];
        } else if (c == '"') {
          in_string_ = false;
        }
        continue;
      }
      if (c == ';') break;  // a comment, to the end of the line
      if (mode_ == Mode::Top) {
        DATALOG_RETURN_IF_ERROR(open_form(c, n));
      } else if (mode_ == Mode::Vector && depth_ == 1) {
        DATALOG_RETURN_IF_ERROR(between_elements(c, n));
      } else {
        DATALOG_RETURN_IF_ERROR(add_to_piece(c, n));
      }
    }
    return Status::OK();
  }

  // Outside every form: a space, or the start of a vector of transaction data or a history map.
  Status open_form(char c, std::uint64_t n) {
    if (is_space(c)) return Status::OK();
    form_line_ = n;
    depth_ = 1;
    if (c == '[') {
      mode_ = Mode::Vector;
    } else if (c == '{') {
      mode_ = Mode::Map;
      piece_.assign(1, c);
    } else {
      return file_.error_at(n, fmt::format("expected a vector of transaction data [...] or a "
                                           "history map {{...}} at the top level, got '{}'", c));
    }
    return Status::OK();
  }

  // In the top-level vector, outside its elements: a space, the vector's end or an element's start.
  Status between_elements(char c, std::uint64_t n) {
    if (is_space(c)) {
      if (elements_ > 0) piece_ += c;
      return Status::OK();
    }
    if (c == ']') {
      DATALOG_RETURN_IF_ERROR(flush_elements());
      DATALOG_RETURN_IF_ERROR(handler_.vector_end());
      mode_ = Mode::Top;
      depth_ = 0;
      return Status::OK();
    }
    if (c != '[' && c != '{') {
      return file_.error_at(n, fmt::format("expected a fact [e a v] or an entity map {{...}} in "
                                           "the transaction vector, got '{}'", c));
    }
    if (elements_ == 0 && piece_.empty()) piece_line_ = n;
    element_line_ = n;
    return add_to_piece(c, n);
  }

  // A byte of an element or of a map, outside strings: brackets are counted to find their end.
  Status add_to_piece(char c, std::uint64_t n) {
    piece_ += c;
    if (c == '"') {
      in_string_ = true;
      string_line_ = n;
    } else if (opens(c)) {
      ++depth_;
    } else if (closes(c)) {
      --depth_;
      if (mode_ == Mode::Vector && depth_ == 1) {
        if (++elements_ >= kElementsPerPiece) return flush_elements();
      } else if (mode_ == Mode::Map && depth_ == 0) {
        DATALOG_RETURN_IF_ERROR(handler_.map(piece_, form_line_));
        piece_.clear();
        mode_ = Mode::Top;
      }
    }
    return Status::OK();
  }

  // Hands the elements gathered so far to the handler.
  Status flush_elements() {
    if (elements_ == 0) return Status::OK();
    elements_ = 0;
    const Status st = handler_.elements(piece_, piece_line_);
    piece_.clear();
    return st;
  }

  // At the end of the file: every form must be closed.
  Status check_closed() const {
    if (mode_ == Mode::Top) return Status::OK();
    if (in_string_) return file_.error_at(string_line_, "unterminated string (the file ends inside it)");
    return file_.error_at(mode_ == Mode::Vector && depth_ > 1 ? element_line_ : form_line_,
                          "unterminated form (the file ends before its closing bracket)");
  }

  InputFile& file_;
  const EdnPieceHandler& handler_;
  Mode mode_ = Mode::Top;
  int depth_ = 0;  // brackets open, the top-level form's included
  bool in_string_ = false;
  std::string piece_;
  std::uint64_t piece_line_ = 0, form_line_ = 0, element_line_ = 0, string_line_ = 0;
  std::size_t elements_ = 0;  // whole elements in piece_
};

}  // namespace

Status split_edn(InputFile& file, const EdnPieceHandler& handler) { return EdnSplitter(file, handler).run(); }

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
