// extension/dot_text.h: a GraphViz DOT text of facts, for datalog_dot (datalog_dot.h).
//
// Each entity is one node, labelled with its name (an ident such as :alice, else #id) and below
// it one line per literal fact ("attribute value"); a fact whose value is an entity is an edge
// labelled with its attribute. Output is deterministic: nodes in order of their labels, lines
// and edges sorted, duplicates once.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace datalog::ext {

struct DotNode {
  std::string id;     // the DOT node id, "n42"
  std::string label;  // ":alice", or "#42" for an entity without an ident
};

struct DotFact {
  DotNode entity;
  std::string attribute;          // ":person/name"
  std::optional<DotNode> target;  // the value, when it is an entity: an edge
  std::string value;              // the value as shown, when it is not ("Alice" in quotes, 34)
};

// `text` as a DOT double-quoted string: `"` and `\` escaped, line breaks as \n, `&` as &amp;
// (GraphViz reads entities in labels), other control characters as &#N;, UTF-8 as it is.
std::string dot_quoted(std::string_view text);

// The digraph named `name` of `facts`.
std::string dot_text(std::string_view name, std::vector<DotFact> facts);

}  // namespace datalog::ext
