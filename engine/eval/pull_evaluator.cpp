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
      std::vector<std::pair<std::string, const std::vector<Value>*>> named;
      for (const auto& [a, values] : all) {
        Value kw;
        DATALOG_RETURN_IF_ERROR(ctx_.attribute_keyword(a, &kw));
        named.emplace_back(kw.as_keyword(), &values);
      }
      std::sort(named.begin(), named.end());
      for (const auto& [key, values] : named) {
        text.clear();
        if (values->size() > 1) text += '[';
        for (std::size_t i = 0; i < values->size(); ++i) {
          if (i > 0) text += ',';
          DATALOG_RETURN_IF_ERROR(value((*values)[i], text));
        }
        if (values->size() > 1) text += ']';
        obj.set(key, std::move(text));
      }
      continue;
    }
    const AttributeSpec& spec = element.attribute;
    text.clear();
    if (spec.is_db_id) {
      DATALOG_RETURN_IF_ERROR(entity(id, text));
    } else if (spec.reverse) {
      std::vector<EntityId> from;
      DATALOG_RETURN_IF_ERROR(referrers(id, spec, &from));
      apply_limit(spec, from);
      if (from.empty()) {
        if (!spec.default_value) continue;
        DATALOG_RETURN_IF_ERROR(value(*spec.default_value, text));
      } else {
        text += '[';
        for (std::size_t i = 0; i < from.size(); ++i) {
          if (i > 0) text += ',';
          DATALOG_RETURN_IF_ERROR(followed(Value::ref(from[i]), spec, pattern, text));
        }
        text += ']';
      }
    } else {
      std::vector<Value> values;
      DATALOG_RETURN_IF_ERROR(
          forward_values(id, spec, pattern.has_wildcard ? &all : nullptr, &values));
      apply_limit(spec, values);
      if (values.empty()) {
        if (!spec.default_value) continue;
        DATALOG_RETURN_IF_ERROR(value(*spec.default_value, text));
      } else {
        if (values.size() > 1) text += '[';
        for (std::size_t i = 0; i < values.size(); ++i) {
          if (i > 0) text += ',';
          DATALOG_RETURN_IF_ERROR(followed(values[i], spec, pattern, text));
        }
        if (values.size() > 1) text += ']';
      }
    }
    obj.set(spec.key, std::move(text));
  }
  path_.pop_back();
  obj.write(out);
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
