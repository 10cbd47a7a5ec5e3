// extension/io/turtle_lexer.h: the tokens of N-Triples and Turtle, a line at a time.
//
// Every token lies on one line but a long string ("""...""" or '''...'''), which may go on over
// many: the lexer carries its text from one line to the next (with the line breaks it holds)
// rather than reading the file whole, up to kMaxLineBytes, and remembers the line it began on
// for messages. Escapes (\t \n \" \uXXXX \UXXXXXXXX ...) are decoded in every kind of string,
// and a prefixed name's local part may escape its punctuation (ex:a\.b, ex:x\,y).
#pragma once

#include <string>
#include <string_view>

#include "engine/value.h"
#include "extension/io/input_file.h"

namespace datalog::ext::io {

struct RdfTerm {
  // Node: an entity the reader made already (an anonymous blank node, a collection's cell).
  enum class Kind { Iri, Blank, Literal, Node } kind = Kind::Iri;
  std::string text;      // the IRI, the blank node's label, or the literal's lexical form
  std::string datatype;  // a literal's datatype IRI (empty: a plain or language-tagged string)
  EntityId node = 0;
};

enum class TurtleTokenKind {
  Iri, PrefixedName, Blank, Literal, A, Dot, Semicolon, Comma, Prefix, Base,
  OpenBracket, CloseBracket, OpenParen, CloseParen,
};

struct TurtleToken {
  TurtleTokenKind kind = TurtleTokenKind::Dot;
  RdfTerm term;         // Iri, Blank, Literal (datatype still to be resolved: see name)
  std::string name;     // PrefixedName: "prefix:local"; Literal: its ^^prefixed datatype, if any
  bool sparql = false;  // PREFIX / BASE (no '.' after them)
};

class TurtleLexer {
 public:
  explicit TurtleLexer(const InputFile& file) : file_(file) {}

  // The file's line just read (kept by the caller until its last token is taken).
  void start_line(std::string_view line, bool ended_with_cr) {
    s_ = line;
    i_ = 0;
    cr_ = ended_with_cr;
  }
  // The next token: false at the end of the line, or on an error (*error set).
  bool next(TurtleToken* t, Status* error);
  // At the end of the file: an error when a long string is still open.
  Status finish() const;

 private:
  bool fail(Status* error, std::string_view message) const;
  void skip_space();
  std::string_view take_name();
  bool take_prefixed_name(std::string* out, Status* error);
  bool escape(std::string& out, Status* error);
  bool unicode_escape(std::string& out, Status* error);
  bool iri(TurtleToken* t, Status* error);
  bool short_string(TurtleToken* t, Status* error);
  bool long_string(TurtleToken* t, Status* error);
  bool literal_suffix(TurtleToken* t, Status* error);
  bool number(TurtleToken* t, Status* error);
  bool directive(TurtleToken* t, Status* error);
  bool word(TurtleToken* t, Status* error);

  const InputFile& file_;
  std::string_view s_;
  std::size_t i_ = 0;
  bool cr_ = false;
  // An open long string: its quote character (0: none), text so far and first line.
  char long_quote_ = 0;
  std::string long_text_;
  std::uint64_t long_line_ = 0;
};

}  // namespace datalog::ext::io
