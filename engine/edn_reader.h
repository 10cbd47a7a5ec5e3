// engine/edn_reader.h: the EDN subset the dialect is written in (LANGUAGE.md §2), read into a
// small tree of Nodes that remember where they came from.
//
// What is read:
//   lists (...), vectors [...], maps {k v ...}; symbols (?x, _, <=, starts-with?, ...);
//   keywords (:a/b; '.' allowed, as in :com.example/name — header rule 3); strings with the
//   escapes \n \t \r \" \\ (any other \x gives x); integers (i64) and floats (digits '.' digits*,
//   so "1." is a float; no exponent); true, false, nil; #uuid "8-4-4-4-12"; #inst "ISO 8601"
//   (our extension: an instant); bind slots $name; the bare symbols `$` (Datomic's source, which
//   the parser accepts where Datomic puts it) and `...` (the :in collection binding).
//   Whitespace is space, tab, CR, LF and comma; ';' starts a comment to the end of the line.
//
// Contract:
//   - Never throws and never crashes, whatever the bytes: every failure is a Status whose message
//     is "parse error at line L, column C: ..." (engine/parse_error.h) in Minigraf's wording.
//   - The input must be UTF-8. Bytes >= 0x80 count as letters in symbols and keywords (an
//     approximation of Rust's Unicode `is_alphanumeric`).
//   - Limits: strings 1 MiB (decoded bytes), keywords (with the ':'), symbols, slot names and tags
//     1024 bytes, collections nested at most 100 deep.
//   - Every Node carries the position and byte range of its text, so the parser can quote the
//     exact source of a form (rules and queries are persisted as text).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/status.h"
#include "engine/value.h"

namespace datalog::edn {

inline constexpr std::size_t kMaxStringBytes = 1024 * 1024;
inline constexpr std::size_t kMaxNameBytes = 1024;
inline constexpr int kMaxDepth = 100;

enum class NodeKind : std::uint8_t {
  List,
  Vector,
  Map,
  Symbol,
  Keyword,
  String,
  Integer,
  Float,
  Boolean,
  Nil,
  Uuid,
  Instant,
  Slot,
};

struct Node {
  NodeKind kind = NodeKind::Nil;
  ast::SourcePos pos;     // of the first character ('(' of a list, '#' of #uuid)
  std::size_t begin = 0;  // byte range [begin, end) of the node's text in the input
  std::size_t end = 0;
  std::string text;  // Symbol: name; Keyword: with ':'; String: decoded; Slot: name without '$'
  std::int64_t integer = 0;  // Integer; Instant: ms since the epoch
  double floating = 0;
  bool boolean = false;
  Uuid uuid;
  std::vector<Node> items;  // List, Vector; Map: key, value, key, value, ...

  bool is_collection() const {
    return kind == NodeKind::List || kind == NodeKind::Vector || kind == NodeKind::Map;
  }
  bool is_symbol(std::string_view name) const { return kind == NodeKind::Symbol && text == name; }
  bool is_keyword(std::string_view name) const { return kind == NodeKind::Keyword && text == name; }
  // ?name, including the ?_name wildcards; `_` is not a variable here (see is_term_variable).
  bool is_variable() const { return kind == NodeKind::Symbol && !text.empty() && text[0] == '?'; }
  // A variable or the bare `_` wildcard: what a pattern or rule argument binds.
  bool is_term_variable() const { return is_variable() || is_symbol("_"); }
};

// Reads every top-level form of text, in order. An empty or comment-only text gives no forms.
// interrupted (may be empty) is polled every few thousand forms: true stops with Interrupted.
Status read_forms(std::string_view text, std::vector<Node>* out,
                  const std::function<bool()>& interrupted = {});

// The node's exact source text.
inline std::string_view source_of(std::string_view text, const Node& node) {
  return text.substr(node.begin, node.end - node.begin);
}

}  // namespace datalog::edn
