#include "engine/edn_reader.h"

#include <functional>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>

#include "engine/parse_error.h"
#include "engine/time_text.h"
#include "engine/uuid_text.h"

namespace datalog::edn {

namespace {

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_ascii_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Bytes of multi-byte UTF-8 characters count as letters (the input is validated first).
bool is_alnum(unsigned char c) { return is_ascii_alpha(c) || is_digit(c) || c >= 0x80; }

bool is_keyword_char(unsigned char c) {
  return is_alnum(c) || c == '/' || c == '-' || c == '_' || c == '?' || c == '.';
}
bool is_symbol_start(unsigned char c) {
  return is_ascii_alpha(c) || c >= 0x80 || c == '?' || c == '_';
}
bool is_symbol_char(unsigned char c) {
  return is_alnum(c) || c == '?' || c == '_' || c == '-' || c == '/';
}
bool is_slot_char(unsigned char c) { return is_alnum(c) || c == '_' || c == '-'; }
bool is_tag_char(unsigned char c) { return is_alnum(c) || c == '-'; }
bool is_whitespace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',';
}

// The offset of the first byte that does not start a well-formed UTF-8 sequence (no overlongs,
// no surrogates, nothing above U+10FFFF), or nullopt when the whole text is UTF-8.
std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + len > text.size()) return i;
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (second < lo || second > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if (b < 0x80 || b > 0xBF) return i;
    }
    i += len;
  }
  return std::nullopt;
}

// A character for an error message: itself when printable ASCII, else \xNN.
std::string describe_char(unsigned char c) {
  if (c >= 0x20 && c < 0x7F) return std::string(1, static_cast<char>(c));
  return fmt::format("\\x{:02X}", static_cast<unsigned>(c));
}

class Reader {
 public:
  Reader(std::string_view text, const std::function<bool()>& interrupted)
      : text_(text), interrupted_(interrupted) {
    // Never more than this: references into it stay valid while nested collections are read.
    open_items_.reserve(kMaxDepth + 1);
    line_starts_.push_back(0);
    for (std::size_t k = 0; k < text.size(); ++k) {
      if (text[k] == '\n') line_starts_.push_back(k + 1);
    }
  }

  Status read_all(std::vector<Node>* out) {
    if (const auto bad = first_invalid_utf8(text_)) {
      return error_at(*bad, "Invalid UTF-8 in input");
    }
    for (;;) {
      skip_blank();
      if (at_end()) return Status::OK();
      Node node;
      DATALOG_RETURN_IF_ERROR(read_form(0, &node));
      out->push_back(std::move(node));
    }
  }

 private:
  bool at_end() const { return i_ >= text_.size(); }
  unsigned char peek(std::size_t ahead = 0) const {
    return i_ + ahead < text_.size() ? static_cast<unsigned char>(text_[i_ + ahead]) : 0;
  }
  bool has(std::size_t ahead) const { return i_ + ahead < text_.size(); }

  ast::SourcePos pos_at(std::size_t offset) const {
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const auto line_index = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
    ast::SourcePos pos;
    pos.line = static_cast<int>(line_index + 1);
    pos.column = static_cast<int>(offset - line_starts_[line_index] + 1);
    return pos;
  }

  Status error_at(std::size_t offset, std::string_view message) const {
    return parse_error(pos_at(offset), message);
  }

  void skip_blank() {
    while (!at_end()) {
      const unsigned char c = peek();
      if (is_whitespace(c)) {
        ++i_;
      } else if (c == ';') {
        while (!at_end() && peek() != '\n') ++i_;
      } else {
        return;
      }
    }
  }

  Status read_form(int depth, Node* out) {
    // A long text (a transaction of a million facts) takes seconds to read: poll the caller.
    if (interrupted_ && ++forms_read_ % kFormsPerPoll == 0 && interrupted_()) {
      return Status(StatusCode::Interrupted, "interrupted");
    }
    skip_blank();
    if (at_end()) return error_at(text_.size(), "Unexpected end of input");
    const std::size_t start = i_;
    DATALOG_RETURN_IF_ERROR(read_by_first_char(depth, out));
    out->begin = start;
    out->pos = pos_at(start);
    out->end = i_;
    return Status::OK();
  }

  // The form at i_, read by what its first character makes it.
  Status read_by_first_char(int depth, Node* out) {
    const unsigned char c = peek();
    switch (c) {
      case '(':
        return read_collection(depth, NodeKind::List, ')', out);
      case '[':
        return read_collection(depth, NodeKind::Vector, ']', out);
      case '{':
        return read_collection(depth, NodeKind::Map, '}', out);
      case ')':
      case ']':
      case '}':
        return error_at(i_, fmt::format("Unexpected token: {}", static_cast<char>(c)));
      case '"':
        return read_string(out);
      case ':':
        return read_keyword(out);
      case '#':
        return read_tagged(out);
      case '$':
        return read_slot(out);
      case '-':
      case '+':
        return is_digit(peek(1)) ? read_number(out) : read_symbol(out);
      case '<':
      case '>':
      case '=':
      case '*':
      case '/':
      case '!':
      case '.':
        return read_operator(out);
      default:
        if (is_digit(c)) return read_number(out);
        if (is_symbol_start(c)) return read_symbol(out);
        return error_at(i_, fmt::format("Unexpected character: {}", describe_char(c)));
    }
  }

  // The symbols made of punctuation alone: < > <= >= = * / != and `...`.
  Status read_operator(Node* out) {
    const std::size_t start = i_;
    switch (peek()) {
      case '<':
      case '>':
        ++i_;
        if (peek() == '=' && !at_end()) ++i_;
        break;
      case '!':
        if (peek(1) != '=' || !has(1)) return error_at(start, "Unexpected character: !");
        i_ += 2;
        break;
      case '.':
        // `...` is the only token that starts with '.': the :in collection binding [?x ...].
        if (peek(1) != '.' || peek(2) != '.' || !has(2)) {
          return error_at(start, "Unexpected character: .");
        }
        i_ += 3;
        break;
      default:  // = * /
        ++i_;
        break;
    }
    set_symbol(start, out);
    return Status::OK();
  }

  void set_symbol(std::size_t start, Node* out) {
    out->kind = NodeKind::Symbol;
    out->text = std::string(text_.substr(start, i_ - start));
  }

  Status read_collection(int depth, NodeKind kind, char closer, Node* out) {
    const std::size_t open = i_;
    if (depth + 1 > kMaxDepth) {
      return error_at(open, fmt::format("Exceeded maximum recursion depth of {}", kMaxDepth));
    }
    out->kind = kind;
    ++i_;
    if (open_items_.size() <= static_cast<std::size_t>(depth)) open_items_.resize(depth + 1);
    std::vector<Node>& items = open_items_[depth];
    items.clear();
    for (;;) {
      skip_blank();
      if (at_end()) {
        switch (kind) {
          case NodeKind::List:
            return error_at(open, "Unclosed list");
          case NodeKind::Vector:
            return error_at(open, "Unclosed vector");
          default:
            return error_at(open, "Unterminated map: missing '}'");
        }
      }
      const unsigned char c = peek();
      if (c == static_cast<unsigned char>(closer)) {
        if (kind == NodeKind::Map && items.size() % 2 != 0) {
          // A key without its value: Minigraf reads the '}' as the value and stops there.
          return error_at(i_, "Unexpected token: }");
        }
        ++i_;
        out->items.assign(std::make_move_iterator(items.begin()),
                          std::make_move_iterator(items.end()));
        items.clear();
        return Status::OK();
      }
      DATALOG_RETURN_IF_ERROR(read_form(depth + 1, &items.emplace_back()));
    }
  }

  Status read_string(Node* out) {
    const std::size_t open = i_;
    ++i_;
    std::string s;
    for (;;) {
      if (at_end()) return error_at(open, "Unterminated string: missing closing quote");
      unsigned char c = peek();
      ++i_;
      if (c == '"') break;
      if (c == '\\') {
        if (at_end()) return error_at(open, "Unterminated string: missing closing quote");
        c = peek();
        ++i_;
        switch (c) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          default:
            break;  // \" \\ and any other \x give the character itself
        }
      }
      if (s.size() >= kMaxStringBytes) {
        return error_at(open,
                        fmt::format("String exceeds maximum length of {} bytes", kMaxStringBytes));
      }
      s.push_back(static_cast<char>(c));
    }
    out->kind = NodeKind::String;
    out->text = std::move(s);
    return Status::OK();
  }

  // Consumes the characters accepted by pred starting at i_; fails past `limit` bytes counted
  // from `start` (so a keyword's ':' counts).
  template <typename Pred>
  bool take_name(std::size_t start, Pred pred, std::size_t limit) {
    while (!at_end() && pred(peek())) {
      if (i_ - start >= limit) return false;
      ++i_;
    }
    return true;
  }

  Status read_keyword(Node* out) {
    const std::size_t start = i_;
    ++i_;  // ':'
    if (!take_name(start, is_keyword_char, kMaxNameBytes)) {
      return error_at(start,
                      fmt::format("Keyword exceeds maximum length of {} bytes", kMaxNameBytes));
    }
    out->kind = NodeKind::Keyword;
    out->text = std::string(text_.substr(start, i_ - start));
    return Status::OK();
  }

  Status read_symbol(Node* out) {
    const std::size_t start = i_;
    ++i_;  // the first character, already checked by the caller
    if (!take_name(start, is_symbol_char, kMaxNameBytes)) {
      return error_at(start,
                      fmt::format("Symbol exceeds maximum length of {} bytes", kMaxNameBytes));
    }
    const std::string_view name = text_.substr(start, i_ - start);
    if (name == "true" || name == "false") {
      out->kind = NodeKind::Boolean;
      out->boolean = name == "true";
    } else if (name == "nil") {
      out->kind = NodeKind::Nil;
    } else {
      out->kind = NodeKind::Symbol;
      out->text = std::string(name);
    }
    return Status::OK();
  }

  Status read_slot(Node* out) {
    const std::size_t start = i_;
    ++i_;  // '$'
    const std::size_t name_start = i_;
    if (!take_name(name_start, is_slot_char, kMaxNameBytes)) {
      return error_at(
          start, fmt::format("Bind slot name exceeds maximum length of {} bytes", kMaxNameBytes));
    }
    if (i_ == name_start) {
      // A bare `$`: Datomic's database source. The parser accepts it where Datomic writes it
      // (:in, get-else, missing?) and reports Minigraf's bare-slot error anywhere else.
      set_symbol(start, out);
      return Status::OK();
    }
    out->kind = NodeKind::Slot;
    out->text = std::string(text_.substr(name_start, i_ - name_start));
    return Status::OK();
  }

  // EDN's and Clojure's numbers: [+-] digits, then for a float a fraction (.digits), an exponent
  // ([eE][+-]digits) or both; an N suffix marks an integer (kept if it fits 64 bits), an M suffix
  // a decimal (read as a float); 0x starts a hexadecimal integer. A float too large for a double
  // is an error; one too small to tell from zero is zero, as in Clojure.
  Status read_number(Node* out) {
    const std::size_t start = i_;
    const bool negative = peek() == '-';
    if (peek() == '-' || peek() == '+') ++i_;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X') && has(1)) return read_hex(start, negative, out);
    const std::size_t digits_start = i_;
    while (!at_end() && is_digit(peek())) ++i_;
    bool is_float = false;
    if (!at_end() && peek() == '.') {
      is_float = true;
      ++i_;
      while (!at_end() && is_digit(peek())) ++i_;
    }
    std::size_t exponent_sign = 0;  // where the exponent's sign would be
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      is_float = true;
      ++i_;
      exponent_sign = i_;
      if (!at_end() && (peek() == '-' || peek() == '+')) ++i_;
      const std::size_t exponent_digits = i_;
      while (!at_end() && is_digit(peek())) ++i_;
      if (i_ == exponent_digits) return malformed_number(start);
    }
    const std::size_t end = i_;
    char suffix = 0;
    if (!at_end() && (peek() == 'N' || peek() == 'M')) suffix = text_[i_++];
    if (!at_end() && (is_alnum(static_cast<unsigned char>(peek())) || peek() == '.')) {
      return malformed_number(start);
    }
    if (suffix == 'N' && is_float) return malformed_number(start);
    const std::string_view literal = text_.substr(start, i_ - start);
    if (!is_float && suffix != 'M') {
      std::int64_t value = 0;
      // from_chars takes no '+': skip it.
      const std::string_view digits = text_.substr(negative ? start : digits_start, end - (negative ? start : digits_start));
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec != std::errc() || ptr != digits.data() + digits.size()) {
        return error_at(start, fmt::format("Integer literal out of range: {}", literal));
      }
      out->kind = NodeKind::Integer;
      out->integer = value;
      return Status::OK();
    }
    std::string normal(text_.substr(digits_start, end - digits_start));
    if (const auto dot = normal.find('.'); dot != std::string::npos &&
                                           (dot + 1 == normal.size() || !is_digit(normal[dot + 1]))) {
      normal = normal.substr(0, dot + 1) + '0' + normal.substr(dot + 1);  // "1.", "1.e5": 1.0, 1.0e5
    }
    double value = 0;
    const auto [ptr, ec] = std::from_chars(normal.data(), normal.data() + normal.size(), value,
                                           std::chars_format::general);
    if (ec == std::errc::result_out_of_range && exponent_sign && text_[exponent_sign] == '-') {
      value = 0.0;  // below the smallest double: zero, as Clojure reads it
    } else if (ec != std::errc() || ptr != normal.data() + normal.size() || !std::isfinite(value)) {
      return error_at(start, fmt::format("Float literal out of range: {}", literal));
    }
    out->kind = NodeKind::Float;
    out->floating = negative ? -value : value;
    return Status::OK();
  }

  Status read_hex(std::size_t start, bool negative, Node* out) {
    i_ += 2;  // 0x
    const std::size_t digits_start = i_;
    while (!at_end() && std::isxdigit(static_cast<unsigned char>(peek()))) ++i_;
    const std::size_t end = i_;
    if (!at_end() && peek() == 'N') ++i_;
    if (end == digits_start || (!at_end() && (is_alnum(static_cast<unsigned char>(peek())) || peek() == '.'))) {
      return malformed_number(start);
    }
    const std::string_view literal = text_.substr(start, i_ - start);
    std::uint64_t magnitude = 0;
    const auto [ptr, ec] = std::from_chars(text_.data() + digits_start, text_.data() + end, magnitude, 16);
    constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;
    if (ec != std::errc() || magnitude > (negative ? kLimit : kLimit - 1)) {
      return error_at(start, fmt::format("Integer literal out of range: {}", literal));
    }
    out->kind = NodeKind::Integer;
    out->integer = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
    return Status::OK();
  }

  Status malformed_number(std::size_t start) {
    std::size_t end = i_;
    while (end < text_.size() && (is_alnum(static_cast<unsigned char>(text_[end])) || text_[end] == '.' ||
                                  text_[end] == '+' || text_[end] == '-')) {
      ++end;
    }
    return error_at(start, fmt::format("Invalid number: {}", text_.substr(start, end - start)));
  }

  // #uuid "..." and #inst "...": the tag, then (after blanks and comments) one string.
  Status read_tagged(Node* out) {
    const std::size_t start = i_;
    ++i_;  // '#'
    const std::size_t tag_start = i_;
    if (!take_name(tag_start, is_tag_char, kMaxNameBytes)) {
      return error_at(
          start, fmt::format("Tagged literal exceeds maximum length of {} bytes", kMaxNameBytes));
    }
    const std::string_view tag = text_.substr(tag_start, i_ - tag_start);
    if (tag != "uuid" && tag != "inst") {
      return error_at(start, fmt::format("Unknown tagged literal: #{}", tag));
    }
    skip_blank();
    if (at_end() || peek() != '"') {
      return error_at(start, tag == "uuid" ? "Expected UUID string after #uuid tag"
                                           : "Expected ISO 8601 string after #inst tag");
    }
    Node literal;
    DATALOG_RETURN_IF_ERROR(read_string(&literal));
    if (tag == "uuid") {
      const auto uuid = parse_uuid(literal.text);
      if (!uuid) return error_at(start, "Invalid UUID");
      out->kind = NodeKind::Uuid;
      out->uuid = *uuid;
      return Status::OK();
    }
    const TimeParse time = parse_instant(literal.text);
    if (!time.ms) return error_at(start, time.error);
    out->kind = NodeKind::Instant;
    out->integer = *time.ms;
    return Status::OK();
  }

  std::string_view text_;
  const std::function<bool()>& interrupted_;
  std::uint32_t forms_read_ = 0;
  static constexpr std::uint32_t kFormsPerPoll = 4096;
  std::size_t i_ = 0;
  std::vector<std::size_t> line_starts_;
  // The items read so far of the open collection at each depth. Reused from one collection to
  // the next, so a collection's items vector is allocated once, at its exact size.
  std::vector<std::vector<Node>> open_items_;
};

}  // namespace

Status read_forms(std::string_view text, std::vector<Node>* out,
                  const std::function<bool()>& interrupted) {
  out->clear();
  Reader reader(text, interrupted);
  Status st = reader.read_all(out);
  if (!st.ok()) out->clear();
  return st;
}

}  // namespace datalog::edn
