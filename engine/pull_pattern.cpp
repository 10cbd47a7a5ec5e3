#include "engine/pull_pattern.h"

#include <fmt/format.h>

#include "engine/parse_error.h"
#include "engine/parser_internal.h"  // constant_of, describe: a pull pattern is part of a query

namespace datalog::pull {

namespace {

using edn::Node;
using edn::NodeKind;

class PatternParser {
 public:
  explicit PatternParser(std::string_view text) : form_(text) {}

  Status pattern(const Node& vec, Pattern* out) const {
    if (vec.kind != NodeKind::Vector) {
      return fail(vec, fmt::format("a pattern must be a vector [...], got {}", describe(vec)));
    }
    for (const Node& item : vec.items) {
      if (item.is_symbol("*")) {
        Element e;
        e.wildcard = true;
        out->elements.push_back(std::move(e));
        out->has_wildcard = true;
      } else if (item.kind == NodeKind::Map) {
        DATALOG_RETURN_IF_ERROR(map_spec(item, out));
      } else if (item.kind == NodeKind::Keyword || item.kind == NodeKind::List) {
        Element e;
        DATALOG_RETURN_IF_ERROR(attribute_spec(item, &e.attribute));
        out->elements.push_back(std::move(e));
      } else {
        return fail(item, fmt::format("expected an attribute keyword, *, a map {{:attr [...]}} or "
                                      "(:attr :option value ...), got {}",
                                      describe(item)));
      }
    }
    return Status::OK();
  }

 private:
  // {attr-spec sub ...}: one element per key, in the order written.
  Status map_spec(const Node& map, Pattern* out) const {
    for (std::size_t k = 0; k + 1 < map.items.size(); k += 2) {
      const Node& key = map.items[k];
      const Node& sub = map.items[k + 1];
      if (key.kind != NodeKind::Keyword && key.kind != NodeKind::List) {
        return fail(key, fmt::format("a map key must be an attribute keyword or "
                                     "(:attr :option value ...), got {}",
                                     describe(key)));
      }
      Element e;
      AttributeSpec& spec = e.attribute;
      DATALOG_RETURN_IF_ERROR(attribute_spec(key, &spec));
      if (spec.is_db_id) return fail(key, ":db/id is the entity itself and cannot be followed");
      if (sub.kind == NodeKind::Vector) {
        auto nested = std::make_shared<Pattern>();
        DATALOG_RETURN_IF_ERROR(pattern(sub, nested.get()));
        spec.follow = AttributeSpec::Follow::Pattern;
        spec.sub = std::move(nested);
      } else if (sub.is_symbol("...")) {
        spec.follow = AttributeSpec::Follow::Recurse;
      } else if (sub.kind == NodeKind::Integer && sub.integer > 0) {
        spec.follow = AttributeSpec::Follow::Recurse;
        spec.max_depth = sub.integer;
      } else {
        return fail(sub, fmt::format("the value of {} in a map must be a pattern [...], ... "
                                     "or a positive recursion limit, got {}",
                                     describe(key), describe(sub)));
      }
      out->elements.push_back(std::move(e));
    }
    return Status::OK();
  }

  // :attr, (:attr :option value ...), (limit :attr n) or (default :attr v).
  Status attribute_spec(const Node& node, AttributeSpec* out) const {
    out->pos = node.pos;
    if (node.kind == NodeKind::Keyword) return attribute_name(node, out);
    const std::vector<Node>& items = node.items;
    if (!items.empty() && (items[0].is_symbol("limit") || items[0].is_symbol("default"))) {
      return legacy_option(node, out);
    }
    if (items.empty() || items[0].kind != NodeKind::Keyword) {
      return fail(node, fmt::format("an attribute with options is written (:attr :as \"key\" "
                                    ":limit n :default value), got {}",
                                    describe(node)));
    }
    DATALOG_RETURN_IF_ERROR(attribute_name(items[0], out));
    bool seen_as = false, seen_limit = false, seen_default = false;
    for (std::size_t k = 1; k < items.size(); k += 2) {
      const Node& option = items[k];
      if (option.kind != NodeKind::Keyword ||
          (option.text != ":as" && option.text != ":limit" && option.text != ":default")) {
        return fail(option, fmt::format("unknown attribute option {} in {}; expected :as, "
                                        ":limit or :default",
                                        describe(option), describe(node)));
      }
      if (k + 1 >= items.size()) {
        return fail(option, fmt::format("attribute option {} needs a value", option.text));
      }
      bool& seen = option.text == ":as"      ? seen_as
                   : option.text == ":limit" ? seen_limit
                                             : seen_default;
      if (seen) return fail(option, fmt::format("attribute option {} is given twice", option.text));
      seen = true;
      const Node& value = items[k + 1];
      if (option.text == ":as") {
        DATALOG_RETURN_IF_ERROR(as_option(value, out));
      } else if (option.text == ":limit") {
        DATALOG_RETURN_IF_ERROR(limit_option(value, out));
      } else {
        DATALOG_RETURN_IF_ERROR(default_option(value, out));
      }
    }
    return Status::OK();
  }

  // (limit :attr n) and (default :attr v): Datomic's first spelling of the options.
  Status legacy_option(const Node& list, AttributeSpec* out) const {
    const std::vector<Node>& items = list.items;
    const std::string& name = items[0].text;
    if (items.size() != 3 || items[1].kind != NodeKind::Keyword) {
      return fail(list, fmt::format("{} is written ({} :attr {}), got {}", name, name,
                                    name == "limit" ? "n" : "value", describe(list)));
    }
    DATALOG_RETURN_IF_ERROR(attribute_name(items[1], out));
    return name == "limit" ? limit_option(items[2], out) : default_option(items[2], out);
  }

  Status attribute_name(const Node& kw, AttributeSpec* out) const {
    const std::string& text = kw.text;
    out->key = text;
    if (text == ":db/id") {
      out->is_db_id = true;
      out->attribute = text;
      return Status::OK();
    }
    const std::size_t slash = text.rfind('/');
    const std::size_t name_at = slash == std::string::npos ? 1 : slash + 1;
    if (name_at < text.size() && text[name_at] == '_') {
      std::string forward = text.substr(0, name_at) + text.substr(name_at + 1);
      if (name_at + 1 >= text.size()) {
        return fail(kw, fmt::format("{} names no attribute: a reverse reference is written "
                                    ":_attr or :ns/_attr",
                                    text));
      }
      out->reverse = true;
      out->attribute = std::move(forward);
      return Status::OK();
    }
    out->attribute = text;
    return Status::OK();
  }

  Status as_option(const Node& value, AttributeSpec* out) const {
    if (value.kind == NodeKind::String || value.kind == NodeKind::Keyword) {
      out->key = value.text;
      return Status::OK();
    }
    return fail(value, fmt::format(":as needs a string or a keyword, got {}", describe(value)));
  }

  Status limit_option(const Node& value, AttributeSpec* out) const {
    if (value.kind == NodeKind::Nil) {
      out->limit.reset();
      return Status::OK();
    }
    if (value.kind == NodeKind::Integer && value.integer > 0) {
      out->limit = value.integer;
      return Status::OK();
    }
    return fail(value,
                fmt::format(":limit needs a positive integer or nil, got {}", describe(value)));
  }

  Status default_option(const Node& value, AttributeSpec* out) const {
    if (auto constant = parser_detail::constant_of(value)) {
      out->default_value = std::move(*constant);
      return Status::OK();
    }
    return fail(value, fmt::format(":default needs a constant value, got {}", describe(value)));
  }

  // The parser's quoting of offending forms (source text, cut at 60 bytes).
  std::string describe(const Node& node) const { return form_.describe(node); }

  static Status fail(const Node& at, std::string_view message) {
    return parse_error(at.pos, fmt::format("pull pattern: {}", message));
  }

  parser_detail::FormParser form_;
};

}  // namespace

Status parse_pattern(const edn::Node& vector, std::string_view text, Pattern* out) {
  *out = Pattern{};
  return PatternParser(text).pattern(vector, out);
}

Status parse_pattern_text(std::string_view text, Pattern* out) {
  std::vector<edn::Node> forms;
  DATALOG_RETURN_IF_ERROR(edn::read_forms(text, &forms));
  if (forms.size() != 1) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("a pull pattern is one vector [...], got {} forms", forms.size()));
  }
  return parse_pattern(forms[0], text, out);
}

}  // namespace datalog::pull
