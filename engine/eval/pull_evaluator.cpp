#include "engine/eval/pull_evaluator.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "engine/eval/json_text.h"
#include "engine/uuid_text.h"

namespace datalog::eval {

namespace {

using pull::AttributeSpec;
using Follow = AttributeSpec::Follow;

// Keys in first-written order; a key written again keeps its place and takes the new value.
class ObjectBuilder {
 public:
  void set(const std::string& key, std::string json) {
    for (auto& [k, v] : entries_) {
      if (k == key) {
        v = std::move(json);
        return;
      }
    }
    entries_.emplace_back(key, std::move(json));
  }
  void write(std::string& out) const {
    out += '{';
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (i > 0) out += ',';
      append_json_string(out, entries_[i].first);
      out += ':';
      out += entries_[i].second;
    }
    out += '}';
  }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

void sort_distinct(std::vector<Value>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

template <typename T>
void apply_limit(const AttributeSpec& spec, std::vector<T>& items) {
  if (spec.limit && static_cast<std::int64_t>(items.size()) > *spec.limit) {
    items.resize(static_cast<std::size_t>(*spec.limit));
  }
}

// One item as itself, several (or any number, when always_array) as a JSON array.
template <typename T, typename WriteOne>
Status one_or_array(const std::vector<T>& items, bool always_array, std::string& out,
                    WriteOne write_one) {
  const bool array = always_array || items.size() > 1;
  if (array) out += '[';
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    DATALOG_RETURN_IF_ERROR(write_one(items[i]));
  }
  if (array) out += ']';
  return Status::OK();
}

}  // namespace

Status PullEvaluator::pull(const Value& v, Value* out) {
  std::optional<EntityId> id;
  if (v.is(ValueKind::Ref) || v.is(ValueKind::Integer) || v.is(ValueKind::Keyword) ||
      v.is(ValueKind::Uuid)) {
    DATALOG_RETURN_IF_ERROR(ctx_.as_entity(v, &id));
  }
  if (!id) {
    *out = Value::nil();
    return Status::OK();
  }
  if (auto it = cache_.find(*id); it != cache_.end()) {
    *out = it->second;
    return Status::OK();
  }
  objects_ = 0;
  path_.clear();
  recursion_.clear();
  std::string json;
  DATALOG_RETURN_IF_ERROR(object(*id, pattern_, json));
  *out = Value::string(std::move(json));
  cache_.emplace(*id, *out);
  return Status::OK();
}

Status PullEvaluator::object(EntityId id, const pull::Pattern& pattern, std::string& out) {
  if (++objects_ > kMaxPulledObjects) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("{} pulls more than {} nested entities for one row; narrow the "
                              "pattern or give recursion a limit ({{:attr 3}})",
                              what_, kMaxPulledObjects));
  }
  DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
  path_.push_back(id);
  ObjectBuilder obj;
  std::string text;
  DATALOG_RETURN_IF_ERROR(entity(id, text));
  obj.set(":db/id", std::move(text));
  Attributes all;
  if (pattern.has_wildcard) DATALOG_RETURN_IF_ERROR(all_attributes(id, &all));
  for (const pull::Element& element : pattern.elements) {
    if (element.wildcard) {
      std::vector<Entry> entries;
      DATALOG_RETURN_IF_ERROR(wildcard(all, &entries));
      for (auto& [key, json] : entries) obj.set(key, std::move(json));
      continue;
    }
    const AttributeSpec& spec = element.attribute;
    text.clear();
    bool present = false;
    const Attributes* known = pattern.has_wildcard ? &all : nullptr;
    DATALOG_RETURN_IF_ERROR(attribute(id, spec, pattern, known, text, &present));
    if (present) obj.set(spec.key, std::move(text));
  }
  path_.pop_back();
  obj.write(out);
  return Status::OK();
}

// `*`: every attribute, in keyword order, values as they are.
Status PullEvaluator::wildcard(const Attributes& all, std::vector<Entry>* out) {
  std::vector<std::pair<std::string, const std::vector<Value>*>> named;
  for (const auto& [a, values] : all) {
    Value kw;
    DATALOG_RETURN_IF_ERROR(ctx_.attribute_keyword(a, &kw));
    named.emplace_back(kw.as_keyword(), &values);
  }
  std::sort(named.begin(), named.end());
  for (const auto& [key, values] : named) {
    std::string text;
    DATALOG_RETURN_IF_ERROR(
        one_or_array(*values, false, text, [&](const Value& v) { return value(v, text); }));
    out->emplace_back(key, std::move(text));
  }
  return Status::OK();
}

// One element's value; *present is false when it has none and no :default.
Status PullEvaluator::attribute(EntityId id, const AttributeSpec& spec, const pull::Pattern& holder,
                                const Attributes* all, std::string& out, bool* present) {
  *present = true;
  if (spec.is_db_id) return entity(id, out);
  if (spec.reverse) {
    std::vector<EntityId> from;
    DATALOG_RETURN_IF_ERROR(referrers(id, spec, &from));
    apply_limit(spec, from);
    if (!from.empty()) {
      return one_or_array(from, true, out,
                          [&](EntityId e) { return followed(Value::ref(e), spec, holder, out); });
    }
  } else {
    std::vector<Value> values;
    DATALOG_RETURN_IF_ERROR(forward_values(id, spec, all, &values));
    apply_limit(spec, values);
    if (!values.empty()) {
      return one_or_array(values, false, out,
                          [&](const Value& v) { return followed(v, spec, holder, out); });
    }
  }
  *present = spec.default_value.has_value();
  if (*present) return value(*spec.default_value, out);
  return Status::OK();
}

Status PullEvaluator::all_attributes(EntityId id, Attributes* out) {
  DatomFilter f;
  f.e = id;
  DATALOG_RETURN_IF_ERROR(ctx_.graph().scan(f, ctx_.view(), [&](const Datom& d) {
    (*out)[d.a].push_back(d.v);
    return true;
  }));
  for (auto& [a, values] : *out) sort_distinct(values);
  return Status::OK();
}

Status PullEvaluator::forward_values(EntityId id, const AttributeSpec& spec,
                                     const Attributes* known, std::vector<Value>* out) {
  std::optional<EntityId> a;
  DATALOG_RETURN_IF_ERROR(ctx_.as_attribute(Value::keyword(spec.attribute), &a));
  if (!a) return Status::OK();
  if (known) {
    if (auto it = known->find(*a); it != known->end()) *out = it->second;
    return Status::OK();
  }
  DatomFilter f;
  f.e = id;
  f.a = a;
  DATALOG_RETURN_IF_ERROR(ctx_.graph().scan(f, ctx_.view(), [&](const Datom& d) {
    out->push_back(d.v);
    return true;
  }));
  sort_distinct(*out);
  return Status::OK();
}

// The entities whose spec.attribute value is id: as a ref, as its ident, or as its integer id.
Status PullEvaluator::referrers(EntityId id, const AttributeSpec& spec,
                                std::vector<EntityId>* out) {
  std::optional<EntityId> a;
  DATALOG_RETURN_IF_ERROR(ctx_.as_attribute(Value::keyword(spec.attribute), &a));
  if (!a) return Status::OK();
  std::vector<Value> forms = {Value::ref(id), Value::integer(id)};
  std::optional<Value> name;
  DATALOG_RETURN_IF_ERROR(ctx_.keyword_of(id, &name));
  if (name) forms.push_back(*name);
  std::set<EntityId> found;
  for (const Value& form : forms) {
    DatomFilter f;
    f.a = a;
    f.v = form;
    DATALOG_RETURN_IF_ERROR(ctx_.graph().scan(f, ctx_.view(), [&](const Datom& d) {
      found.insert(d.e);
      return true;
    }));
  }
  out->assign(found.begin(), found.end());
  return Status::OK();
}

// One value of an attribute under spec: a nested object when spec follows and v names an
// entity, else the value itself.
Status PullEvaluator::followed(const Value& v, const AttributeSpec& spec,
                               const pull::Pattern& holder, std::string& out) {
  if (spec.follow == Follow::None) return value(v, out);
  std::optional<EntityId> id;
  if (v.is(ValueKind::Ref) || v.is(ValueKind::Integer) || v.is(ValueKind::Keyword) ||
      v.is(ValueKind::Uuid)) {
    DATALOG_RETURN_IF_ERROR(ctx_.as_entity(v, &id));
  }
  if (!id) return value(v, out);
  return nested(*id, spec, holder, out);
}

Status PullEvaluator::nested(EntityId id, const AttributeSpec& spec, const pull::Pattern& holder,
                             std::string& out) {
  if (spec.follow == Follow::Pattern) return object(id, *spec.sub, out);
  std::int64_t& levels = recursion_[&spec];
  const std::int64_t limit = spec.max_depth.value_or(kMaxPullRecursion);
  const bool cycle = std::find(path_.begin(), path_.end(), id) != path_.end();
  if (cycle || levels >= limit) {
    ObjectBuilder stub;
    std::string text;
    DATALOG_RETURN_IF_ERROR(entity(id, text));
    stub.set(":db/id", std::move(text));
    stub.write(out);
    return Status::OK();
  }
  ++levels;
  Status st = object(id, holder, out);
  --recursion_[&spec];
  return st;
}

Status PullEvaluator::entity(EntityId id, std::string& out) {
  std::optional<Value> name;
  DATALOG_RETURN_IF_ERROR(ctx_.keyword_of(id, &name));
  if (name && name->is(ValueKind::Keyword)) {
    append_json_string(out, name->as_keyword());
  } else if (name && name->is(ValueKind::Uuid)) {
    append_json_string(out, format_uuid(name->as_uuid()));
  } else {
    out += fmt::format("{}", id);
  }
  return Status::OK();
}

Status PullEvaluator::value(const Value& v, std::string& out) {
  if (v.is(ValueKind::Ref)) return entity(v.as_ref(), out);
  append_json_scalar(out, v);
  return Status::OK();
}

}  // namespace datalog::eval
