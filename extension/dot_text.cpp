#include "extension/dot_text.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

namespace datalog::ext {

std::string dot_quoted(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '&': out += "&amp;"; break;
      case '\n': out += "\\n"; break;
      case '\r':  // CR LF is one line break, a lone CR another
        if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        out += "\\n";
        break;
      default:
        // Control characters have no DOT escape; GraphViz decodes numeric entities in labels.
        if (c < 0x20 || c == 0x7f) out += fmt::format("&#{};", c);
        else out += static_cast<char>(c);  // UTF-8 passes through: DOT's default charset
    }
  }
  return out + "\"";
}

std::string dot_text(std::string_view name, std::vector<DotFact> facts) {
  // Nodes by id, each with its literal lines; edges as (from, attribute, to).
  struct Node {
    std::string label;
    std::vector<std::string> lines;
  };
  std::map<std::string, Node> nodes;
  std::vector<std::tuple<std::string, std::string, std::string>> edges;
  for (DotFact& f : facts) {
    Node& node = nodes[f.entity.id];
    node.label = f.entity.label;
    if (f.target) {
      nodes[f.target->id].label = f.target->label;
      edges.emplace_back(f.entity.id, f.attribute, f.target->id);
    } else {
      node.lines.push_back(f.attribute + " " + f.value);
    }
  }
  std::vector<const std::pair<const std::string, Node>*> order;
  for (auto& entry : nodes) {
    std::sort(entry.second.lines.begin(), entry.second.lines.end());
    entry.second.lines.erase(std::unique(entry.second.lines.begin(), entry.second.lines.end()),
                             entry.second.lines.end());
    order.push_back(&entry);
  }
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return std::tie(a->second.label, a->first) < std::tie(b->second.label, b->first);
  });
  const auto label_of = [&](const std::string& id) -> const std::string& { return nodes[id].label; };
  std::sort(edges.begin(), edges.end(), [&](const auto& a, const auto& b) {
    return std::tie(label_of(std::get<0>(a)), std::get<1>(a), label_of(std::get<2>(a)), std::get<0>(a),
                    std::get<2>(a)) <
           std::tie(label_of(std::get<0>(b)), std::get<1>(b), label_of(std::get<2>(b)), std::get<0>(b),
                    std::get<2>(b));
  });
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());

  std::string out = fmt::format("digraph {} {{\n  node [shape=box];\n", dot_quoted(name));
  for (const auto* entry : order) {
    std::string label = entry->second.label;
    for (const std::string& line : entry->second.lines) label += "\n" + line;
    out += fmt::format("  {} [label={}];\n", entry->first, dot_quoted(label));
  }
  for (const auto& [from, attribute, to] : edges) {
    out += fmt::format("  {} -> {} [label={}];\n", from, to, dot_quoted(attribute));
  }
  return out + "}\n";
}

}  // namespace datalog::ext
