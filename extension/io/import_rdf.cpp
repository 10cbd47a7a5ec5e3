#include "extension/io/import_rdf.h"

#include <unordered_map>

#include <fmt/format.h>

#include "extension/io/rdf_terms.h"
#include "extension/io/text_codec.h"

namespace datalog::ext::io {

namespace {

constexpr std::string_view kRdfType = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
constexpr std::string_view kXsd = "http://www.w3.org/2001/XMLSchema#";

struct Term {
  enum class Kind { Iri, Blank, Literal } kind = Kind::Iri;
  std::string text;      // the IRI, the blank node's label, or the literal's lexical form
  std::string datatype;  // a literal's datatype IRI (empty: a plain or language-tagged string)
};

enum class TokenKind { Iri, PrefixedName, Blank, Literal, A, Dot, Semicolon, Comma, Prefix, Base };

struct Token {
  TokenKind kind;
  Term term;           // Iri, Blank, Literal (datatype still to be resolved: see datatype_name)
  std::string name;    // PrefixedName: "prefix:local"; Literal: its ^^prefixed datatype, if any
  bool sparql = false; // PREFIX / BASE (no '.' after them)
};

bool is_name_char(unsigned char c) {
  return std::isalnum(c) || c >= 0x80 || c == '_' || c == '-' || c == '.' || c == ':' || c == '%';
}

// Splits one line into tokens (a Turtle-lite token never spans lines).
class LineLexer {
 public:
  explicit LineLexer(std::string_view line) : s_(line) {}

  // False at the end of the line; *error set on a malformed token.
  bool next(Token* t, std::string* error) {
    t->name.clear();
    skip_space();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    switch (c) {
      case '<': return iri(t, error);
      case '"':
      case '\'': return literal(t, error);
      case '.': ++i_; t->kind = TokenKind::Dot; return true;
      case ';': ++i_; t->kind = TokenKind::Semicolon; return true;
      case ',': ++i_; t->kind = TokenKind::Comma; return true;
      case '[':
      case '(':
        *error = fmt::format("'{}' (anonymous blank nodes and collections) is not supported by the "
                             "Turtle subset read here; name the blank node (_:b1)", c);
        return false;
      case '@': return directive(t, error);
      default: break;
    }
    if (c == '_' && i_ + 1 < s_.size() && s_[i_ + 1] == ':') {
      i_ += 2;
      t->kind = TokenKind::Blank;
      t->term = Term{Term::Kind::Blank, std::string(take_name()), {}};
      if (t->term.text.empty()) return fail(error, "blank node without a label");
      return true;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-') return number(t, error);
    std::string_view word = take_name();
    if (word.empty()) return fail(error, fmt::format("unexpected character '{}'", c));
    if (word == "a") {
      t->kind = TokenKind::A;
      return true;
    }
    if (word == "true" || word == "false") {
      t->kind = TokenKind::Literal;
      t->term = Term{Term::Kind::Literal, std::string(word), std::string(kXsd) + "boolean"};
      return true;
    }
    const std::string upper = [&] {
      std::string u(word);
      for (char& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      return u;
    }();
    if (upper == "PREFIX" || upper == "BASE") {
      t->kind = upper == "PREFIX" ? TokenKind::Prefix : TokenKind::Base;
      t->sparql = true;
      return true;
    }
    if (word.find(':') == std::string_view::npos) {
      return fail(error, fmt::format("unexpected word '{}' (an IRI is written <...>)", word));
    }
    t->kind = TokenKind::PrefixedName;
    t->name = std::string(word);
    return true;
  }

 private:
  bool fail(std::string* error, std::string message) {
    *error = std::move(message);
    return false;
  }

  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
    if (i_ < s_.size() && s_[i_] == '#') i_ = s_.size();
  }

  // A prefixed name or word; a final '.' is the statement's end, not part of the name.
  std::string_view take_name() {
    const std::size_t start = i_;
    while (i_ < s_.size() && is_name_char(static_cast<unsigned char>(s_[i_]))) ++i_;
    while (i_ > start && s_[i_ - 1] == '.') --i_;
    return s_.substr(start, i_ - start);
  }

  bool unicode_escape(std::string& out, std::string* error) {
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

  bool iri(Token* t, std::string* error) {
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '>') {
      const char c = s_[i_];
      if (c == '\\') {
        ++i_;
        if (i_ >= s_.size() || (s_[i_] != 'u' && s_[i_] != 'U')) return fail(error, "bad escape in IRI");
        if (!unicode_escape(out, error)) return false;
        continue;
      }
      if (c == ' ' || c == '<' || c == '"') return fail(error, "unterminated IRI");
      out += c;
      ++i_;
    }
    if (i_ >= s_.size()) return fail(error, "unterminated IRI");
    ++i_;
    t->kind = TokenKind::Iri;
    t->term = Term{Term::Kind::Iri, std::move(out), {}};
    return true;
  }

  bool literal(Token* t, std::string* error) {
    const char quote = s_[i_];
    if (s_.substr(i_, 3) == std::string(3, quote)) {
      return fail(error, "long strings (\"\"\" or ''') are not supported by the Turtle subset read here");
    }
    ++i_;
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) return fail(error, "unterminated string");
      const char c = s_[i_];
      if (c == quote) break;
      if (c == '\\') {
        ++i_;
        if (i_ >= s_.size()) return fail(error, "unterminated string");
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
          case 'U':
            if (!unicode_escape(out, error)) return false;
            continue;
          default: return fail(error, fmt::format("bad escape '\\{}' in string", e));
        }
        ++i_;
        continue;
      }
      out += c;
      ++i_;
    }
    ++i_;
    t->kind = TokenKind::Literal;
    t->term = Term{Term::Kind::Literal, std::move(out), {}};
    t->name.clear();
    if (i_ < s_.size() && s_[i_] == '@') {
      ++i_;  // a language tag: the string keeps its text, the tag is dropped
      const std::size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-')) ++i_;
      if (i_ == start) return fail(error, "empty language tag");
    } else if (s_.substr(i_, 2) == "^^") {
      i_ += 2;
      if (i_ < s_.size() && s_[i_] == '<') {
        Token type;
        if (!iri(&type, error)) return false;
        t->term.datatype = std::move(type.term.text);
      } else {
        t->name = std::string(take_name());
        if (t->name.find(':') == std::string::npos) return fail(error, "bad datatype after ^^");
      }
    }
    return true;
  }

  bool number(Token* t, std::string* error) {
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
    t->kind = TokenKind::Literal;
    t->term = Term{Term::Kind::Literal, std::string(text),
                   std::string(kXsd) + (exponent ? "double" : dot ? "decimal" : "integer")};
    return true;
  }

  bool directive(Token* t, std::string* error) {
    ++i_;
    const std::string_view word = take_name();
    if (word == "prefix") {
      t->kind = TokenKind::Prefix;
    } else if (word == "base") {
      t->kind = TokenKind::Base;
    } else {
      return fail(error, fmt::format("unknown directive '@{}'", word));
    }
    t->sparql = false;
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// Statements, token by token, across lines.
class TurtleReader {
 public:
  explicit TurtleReader(ImportTarget& target) : target_(target), file_(target.file()) {}

  Status run() {
    std::string line, error;
    while (file_.next_line(&line)) {
      LineLexer lexer(line);
      Token t;
      while (lexer.next(&t, &error)) DATALOG_RETURN_IF_ERROR(take(t));
      if (!error.empty()) return file_.error(error);
    }
    DATALOG_RETURN_IF_ERROR(file_.status());
    if (state_ != State::Subject) return file_.error("the last statement is not finished (no '.')");
    return Status::OK();
  }

 private:
  enum class State { Subject, Predicate, Object, AfterObject, PrefixName, PrefixIri, BaseIri, DirectiveEnd };

  Status take(Token& t) {
    switch (state_) {
      case State::Subject:
        if (t.kind == TokenKind::Prefix) {
          sparql_directive_ = t.sparql;
          state_ = State::PrefixName;
          return Status::OK();
        }
        if (t.kind == TokenKind::Base) {
          sparql_directive_ = t.sparql;
          state_ = State::BaseIri;
          return Status::OK();
        }
        DATALOG_RETURN_IF_ERROR(term(t, "a subject", &subject_));
        if (subject_.kind == Term::Kind::Literal) return file_.error("a literal cannot be a subject");
        state_ = State::Predicate;
        return Status::OK();
      case State::Predicate:
        if (t.kind == TokenKind::Dot && after_semicolon_) return end_statement();
        if (t.kind == TokenKind::A) {
          predicate_ = Term{Term::Kind::Iri, std::string(kRdfType), {}};
        } else {
          DATALOG_RETURN_IF_ERROR(term(t, "a predicate", &predicate_));
          if (predicate_.kind != Term::Kind::Iri) return file_.error("a predicate must be an IRI");
        }
        state_ = State::Object;
        return Status::OK();
      case State::Object: {
        Term object;
        DATALOG_RETURN_IF_ERROR(term(t, "an object", &object));
        DATALOG_RETURN_IF_ERROR(emit(object));
        state_ = State::AfterObject;
        return Status::OK();
      }
      case State::AfterObject:
        after_semicolon_ = false;
        if (t.kind == TokenKind::Comma) {
          state_ = State::Object;
        } else if (t.kind == TokenKind::Semicolon) {
          after_semicolon_ = true;
          state_ = State::Predicate;
        } else if (t.kind == TokenKind::Dot) {
          return end_statement();
        } else {
          return file_.error("expected '.', ';' or ',' after the object");
        }
        return Status::OK();
      case State::PrefixName:
        if (t.kind != TokenKind::PrefixedName || t.name.back() != ':' ||
            t.name.find(':') != t.name.size() - 1) {
          return file_.error("expected a prefix name ending in ':' after @prefix");
        }
        pending_prefix_ = t.name.substr(0, t.name.size() - 1);
        state_ = State::PrefixIri;
        return Status::OK();
      case State::PrefixIri:
        if (t.kind != TokenKind::Iri) return file_.error("expected <IRI> after the prefix name");
        prefixes_[pending_prefix_] = resolve(t.term.text);
        return directive_done();
      case State::BaseIri:
        if (t.kind != TokenKind::Iri) return file_.error("expected <IRI> after @base");
        base_ = resolve(t.term.text);
        return directive_done();
      case State::DirectiveEnd:
        if (t.kind != TokenKind::Dot) return file_.error("expected '.' after the directive");
        state_ = State::Subject;
        return Status::OK();
    }
    return Status::OK();
  }

  Status directive_done() {
    state_ = sparql_directive_ ? State::Subject : State::DirectiveEnd;
    return Status::OK();
  }

  Status end_statement() {
    after_semicolon_ = false;
    state_ = State::Subject;
    return target_.entity_done();
  }

  std::string resolve(const std::string& iri) const {
    if (base_.empty() || iri.find(':') != std::string::npos) return iri;
    return base_ + iri;
  }

  Status expand(const std::string& name, std::string* iri) {
    const std::size_t colon = name.find(':');
    const auto it = prefixes_.find(name.substr(0, colon));
    if (it == prefixes_.end()) {
      return file_.error(fmt::format("undeclared prefix '{}:'", name.substr(0, colon)));
    }
    *iri = it->second + name.substr(colon + 1);
    return Status::OK();
  }

  Status term(Token& t, std::string_view what, Term* out) {
    switch (t.kind) {
      case TokenKind::Iri:
        *out = std::move(t.term);
        out->text = resolve(out->text);
        return Status::OK();
      case TokenKind::Blank:
        *out = std::move(t.term);
        return Status::OK();
      case TokenKind::PrefixedName:
        out->kind = Term::Kind::Iri;
        return expand(t.name, &out->text);
      case TokenKind::Literal:
        *out = std::move(t.term);
        if (!t.name.empty()) return expand(t.name, &out->datatype);
        return Status::OK();
      default:
        return file_.error(fmt::format("expected {}", what));
    }
  }

  Status entity_value(const Term& t, Value* out) {
    if (t.kind == Term::Kind::Blank) {
      EntityId id = 0;
      DATALOG_RETURN_IF_ERROR(target_.blank_node(t.text, &id));
      *out = Value::ref(id);
      return Status::OK();
    }
    *out = entity_of_iri(t.text);
    return Status::OK();
  }

  Status emit(const Term& object) {
    ast::Fact f;
    f.pos = ast::SourcePos{static_cast<int>(file_.line_number()), 1};
    DATALOG_RETURN_IF_ERROR(entity_value(subject_, &f.e));
    f.a = entity_of_iri(predicate_.text);
    if (!f.a.is(ValueKind::Keyword)) {
      return file_.error(fmt::format("predicate <{}> names an entity, not an attribute", predicate_.text));
    }
    if (object.kind == Term::Kind::Literal) {
      std::string error;
      auto v = literal_value(object.text, object.datatype, &error);
      if (!v) return file_.error(error);
      f.v = std::move(*v);
    } else {
      Value e;
      DATALOG_RETURN_IF_ERROR(entity_value(object, &e));
      if (e.is(ValueKind::Ref)) {
        f.v = std::move(e);
      } else if (e.is(ValueKind::Integer)) {
        f.v = Value::ref(e.as_integer());
      } else {
        EntityId id = 0;
        DATALOG_RETURN_IF_ERROR(target_.writer().resolve_ident(e, &id));
        f.v = Value::ref(id);
      }
    }
    target_.add(std::move(f));
    return Status::OK();
  }

  ImportTarget& target_;
  InputFile& file_;
  State state_ = State::Subject;
  bool sparql_directive_ = false, after_semicolon_ = false;
  Term subject_, predicate_;
  std::string pending_prefix_, base_;
  std::unordered_map<std::string, std::string> prefixes_;
};

}  // namespace

Status import_rdf(ImportTarget& target) { return TurtleReader(target).run(); }

}  // namespace datalog::ext::io
