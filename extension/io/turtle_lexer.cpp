#include "extension/io/turtle_lexer.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "extension/io/text_codec.h"

namespace datalog::ext::io {

namespace {

constexpr std::string_view kXsd = "http://www.w3.org/2001/XMLSchema#";

bool is_name_char(unsigned char c) {
  return std::isalnum(c) || c >= 0x80 || c == '_' || c == '-' || c == '.' || c == ':' || c == '%';
}

// What a backslash may escape in a prefixed name's local part (Turtle's PN_LOCAL_ESC).
// What stops a run of an IRI's plain characters: its end, an escape, or a character an IRI
// cannot hold.
bool ends_iri_run(char c) { return c == '>' || c == '\\' || c == ' ' || c == '<' || c == '"'; }

bool is_local_escape(char c) {
  return std::string_view("_~.-!$&'()*+,;=/?#@%").find(c) != std::string_view::npos;
}

}  // namespace

bool TurtleLexer::next(TurtleToken* t, Status* error) {
  t->name.clear();
  if (long_quote_ != 0) return long_string(t, error);
  skip_space();
  if (i_ >= s_.size()) return false;
  const char c = s_[i_];
  auto punctuation = [&](TurtleTokenKind kind) {
    ++i_;
    t->kind = kind;
    return true;
  };
  switch (c) {
    case '<': return iri(t, error);
    case '"':
    case '\'':
      if (s_.substr(i_, 3) == std::string_view(c == '"' ? R"(""")" : "'''")) {
        long_quote_ = c;
        long_line_ = file_.line_number();
        i_ += 3;
        return long_string(t, error);
      }
      return short_string(t, error);
    case '.':
      // .5 is a decimal (Turtle's DECIMAL needs no digit before the point).
      if (i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))) return number(t, error);
      return punctuation(TurtleTokenKind::Dot);
    case ';': return punctuation(TurtleTokenKind::Semicolon);
    case ',': return punctuation(TurtleTokenKind::Comma);
    case '[': return punctuation(TurtleTokenKind::OpenBracket);
    case ']': return punctuation(TurtleTokenKind::CloseBracket);
    case '(': return punctuation(TurtleTokenKind::OpenParen);
    case ')': return punctuation(TurtleTokenKind::CloseParen);
    case '@': return directive(t, error);
    default: break;
  }
  if (c == '_' && i_ + 1 < s_.size() && s_[i_ + 1] == ':') {
    i_ += 2;
    t->kind = TurtleTokenKind::Blank;
    t->term = RdfTerm{RdfTerm::Kind::Blank, std::string(take_name()), {}, 0};
    if (t->term.text.empty()) return fail(error, "blank node without a label");
    return true;
  }
  if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-') return number(t, error);
  return word(t, error);
}

Status TurtleLexer::finish() const {
  if (long_quote_ == 0) return Status::OK();
  return file_.error_at(long_line_, "unterminated long string (the file ends inside it)");
}

bool TurtleLexer::fail(Status* error, std::string_view message) const {
  *error = file_.error(message);
  return false;
}

void TurtleLexer::skip_space() {
  while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  if (i_ < s_.size() && s_[i_] == '#') i_ = s_.size();
}

// A prefixed name or word; a final '.' is the statement's end, not part of the name.
std::string_view TurtleLexer::take_name() {
  const std::size_t start = i_;
  while (i_ < s_.size() && is_name_char(static_cast<unsigned char>(s_[i_]))) ++i_;
  while (i_ > start && s_[i_ - 1] == '.') --i_;
  return s_.substr(start, i_ - start);
}

// A prefixed name (or a word) with its backslash escapes decoded: ex:a\.b is ex:a.b. As in
// take_name, a final unescaped '.' ends the statement; an escaped one belongs to the name.
bool TurtleLexer::take_prefixed_name(std::string* out, Status* error) {
  out->clear();
  std::size_t keep = 0;  // out's length up to its last character that may end a name
  while (i_ < s_.size()) {
    const char c = s_[i_];
    if (c == '\\') {
      if (i_ + 1 >= s_.size() || !is_local_escape(s_[i_ + 1])) {
        return fail(error, i_ + 1 >= s_.size() ? std::string("a backslash at the end of a prefixed name")
                                               : fmt::format("bad escape '\\{}' in a prefixed name", s_[i_ + 1]));
      }
      out->push_back(s_[i_ + 1]);
      i_ += 2;
      keep = out->size();
      continue;
    }
    if (!is_name_char(static_cast<unsigned char>(c))) break;
    out->push_back(c);
    ++i_;
    if (c != '.') keep = out->size();
  }
  i_ -= out->size() - keep;  // the trailing dots, one byte each, go back
  out->resize(keep);
  return true;
}

// At a backslash inside a string: its escape, decoded onto out.
bool TurtleLexer::escape(std::string& out, Status* error) {
  ++i_;
  if (i_ >= s_.size()) {
    return fail(error, long_quote_ ? "a backslash at the end of a line (Turtle has no line continuation)"
                                   : "unterminated string");
  }
  const char e = s_[i_];
  switch (e) {
    case 't': out += '\t'; break;
    case 'b': out += '\b'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 'f': out += '\f'; break;
    case '"': out += '"'; break;
    case '\'': out += '\''; break;
    case '\\': out += '\\'; break;
    case 'u':
    case 'U': return unicode_escape(out, error);
    default: return fail(error, fmt::format("bad escape '\\{}' in string", e));
  }
  ++i_;
  return true;
}

bool TurtleLexer::unicode_escape(std::string& out, Status* error) {
  // at the 'u' or 'U' after a backslash
  const std::size_t digits = s_[i_] == 'u' ? 4 : 8;
  if (i_ + digits >= s_.size()) return fail(error, "truncated \\u escape");
  std::uint32_t cp = 0;
  for (std::size_t k = 1; k <= digits; ++k) {
    const char h = s_[i_ + k];
    cp <<= 4;
    if (h >= '0' && h <= '9') cp |= static_cast<std::uint32_t>(h - '0');
    else if (h >= 'a' && h <= 'f') cp |= static_cast<std::uint32_t>(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F') cp |= static_cast<std::uint32_t>(h - 'A' + 10);
    else return fail(error, "bad \\u escape");
  }
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return fail(error, "bad \\u escape");
  append_utf8(out, cp);
  i_ += digits + 1;
  return true;
}

bool TurtleLexer::iri(TurtleToken* t, Status* error) {
  ++i_;
  std::string out;
  for (;;) {
    // The characters up to the next one that ends, escapes or breaks the IRI go in at once:
    // appended one at a time, IRIs took a tenth of an N-Triples import.
    const std::size_t run = i_;
    while (i_ < s_.size() && !ends_iri_run(s_[i_])) ++i_;
    out.append(s_.data() + run, i_ - run);
    if (i_ >= s_.size()) return fail(error, "unterminated IRI");
    const char c = s_[i_];
    if (c == '>') break;
    if (c != '\\') return fail(error, "unterminated IRI");  // ' ', '<' or '"'
    ++i_;
    if (i_ >= s_.size() || (s_[i_] != 'u' && s_[i_] != 'U')) return fail(error, "bad escape in IRI");
    if (!unicode_escape(out, error)) return false;
  }
  ++i_;
  t->kind = TurtleTokenKind::Iri;
  t->term = RdfTerm{RdfTerm::Kind::Iri, std::move(out), {}, 0};
  return true;
}

bool TurtleLexer::short_string(TurtleToken* t, Status* error) {
  const char quote = s_[i_++];
  std::string out;
  for (;;) {
    const std::size_t run = i_;  // up to the closing quote or an escape, at once
    while (i_ < s_.size() && s_[i_] != quote && s_[i_] != '\\') ++i_;
    out.append(s_.data() + run, i_ - run);
    if (i_ >= s_.size()) return fail(error, "unterminated string");
    if (s_[i_] == quote) break;
    if (!escape(out, error)) return false;
  }
  ++i_;
  t->term = RdfTerm{RdfTerm::Kind::Literal, std::move(out), {}, 0};
  return literal_suffix(t, error);
}

// Inside """ or ''' (opened on this line or an earlier one): to the closing three quotes, or
// to the end of the line, whose line break then belongs to the text.
bool TurtleLexer::long_string(TurtleToken* t, Status* error) {
  const std::string_view close(long_quote_ == '"' ? R"(""")" : "'''");
  for (;;) {
    if (i_ >= s_.size()) {
      long_text_ += cr_ ? "\r\n" : "\n";
      if (long_text_.size() > kMaxLineBytes) {
        *error = file_.error_at(long_line_, fmt::format("long string longer than {} MiB (the limit of a line)",
                                                        kMaxLineBytes >> 20));
      }
      return false;  // it goes on on the next line
    }
    // Up to the next quote or backslash at once: a long string may be megabytes.
    const std::string_view stops = long_quote_ == '"' ? R"("\)" : R"('\)";
    const std::size_t stop = std::min(s_.find_first_of(stops, i_), s_.size());
    long_text_.append(s_, i_, stop - i_);
    i_ = stop;
    if (i_ >= s_.size()) continue;
    if (s_.substr(i_, 3) == close) break;
    if (s_[i_] == '\\') {
      if (!escape(long_text_, error)) return false;
      continue;
    }
    long_text_ += s_[i_++];  // one or two quotes inside
  }
  i_ += 3;
  long_quote_ = 0;
  t->term = RdfTerm{RdfTerm::Kind::Literal, std::move(long_text_), {}, 0};
  long_text_.clear();
  return literal_suffix(t, error);
}

// After a string's closing quote: its @language (dropped) or ^^datatype.
bool TurtleLexer::literal_suffix(TurtleToken* t, Status* error) {
  t->kind = TurtleTokenKind::Literal;
  t->name.clear();
  if (i_ < s_.size() && s_[i_] == '@') {
    ++i_;  // a language tag: the string keeps its text, the tag is dropped
    const std::size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-')) ++i_;
    if (i_ == start) return fail(error, "empty language tag");
  } else if (s_.substr(i_, 2) == "^^") {
    i_ += 2;
    if (i_ < s_.size() && s_[i_] == '<') {
      TurtleToken type;
      if (!iri(&type, error)) return false;
      t->term.datatype = std::move(type.term.text);
    } else {
      if (!take_prefixed_name(&t->name, error)) return false;
      if (t->name.find(':') == std::string::npos) return fail(error, "bad datatype after ^^");
    }
  }
  return true;
}

bool TurtleLexer::number(TurtleToken* t, Status* error) {
  const std::size_t start = i_;
  if (s_[i_] == '+' || s_[i_] == '-') ++i_;
  bool dot = false, exponent = false;
  while (i_ < s_.size()) {
    const char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      ++i_;
    } else if (c == '.' && !dot && !exponent && i_ + 1 < s_.size() &&
               std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))) {
      dot = true;
      ++i_;
    } else if ((c == 'e' || c == 'E') && !exponent) {
      exponent = true;
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
    } else {
      break;
    }
  }
  const std::string_view text = s_.substr(start, i_ - start);
  if (text == "+" || text == "-") return fail(error, fmt::format("unexpected '{}'", text));
  t->kind = TurtleTokenKind::Literal;
  t->term = RdfTerm{RdfTerm::Kind::Literal, std::string(text),
                    fmt::format("{}{}", kXsd, exponent ? "double" : dot ? "decimal" : "integer"), 0};
  return true;
}

bool TurtleLexer::directive(TurtleToken* t, Status* error) {
  ++i_;
  const std::string_view word = take_name();
  if (word == "prefix") {
    t->kind = TurtleTokenKind::Prefix;
  } else if (word == "base") {
    t->kind = TurtleTokenKind::Base;
  } else {
    return fail(error, fmt::format("unknown directive '@{}'", word));
  }
  t->sparql = false;
  return true;
}

// `a`, true / false, PREFIX / BASE, or a prefixed name.
bool TurtleLexer::word(TurtleToken* t, Status* error) {
  const char c = s_[i_];
  std::string word;
  if (!take_prefixed_name(&word, error)) return false;
  if (word.empty()) return fail(error, fmt::format("unexpected character '{}'", c));
  if (word == "a") {
    t->kind = TurtleTokenKind::A;
    return true;
  }
  if (word == "true" || word == "false") {
    t->kind = TurtleTokenKind::Literal;
    t->term = RdfTerm{RdfTerm::Kind::Literal, word, fmt::format("{}boolean", kXsd), 0};
    return true;
  }
  std::string upper(word);
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (upper == "PREFIX" || upper == "BASE") {
    t->kind = upper == "PREFIX" ? TurtleTokenKind::Prefix : TurtleTokenKind::Base;
    t->sparql = true;
    return true;
  }
  if (word.find(':') == std::string_view::npos) {
    return fail(error, fmt::format("unexpected word '{}' (an IRI is written <...>)", word));
  }
  t->kind = TurtleTokenKind::PrefixedName;
  t->name = std::move(word);
  return true;
}

}  // namespace datalog::ext::io
