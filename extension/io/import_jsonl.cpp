#include "extension/io/import_jsonl.h"

#include <fmt/format.h>

#include "extension/io/json_line.h"
#include "extension/io/typed_text.h"
#include "extension/sql_values.h"

namespace datalog::ext::io {

namespace {

class JsonLinesImport {
 public:
  explicit JsonLinesImport(ImportTarget& target) : target_(target), file_(target.file()) {}

  Status run() {
    std::string line, error;
    Json object;
    while (file_.next_line(&line)) {
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      if (!parse_json(line, &object, &error)) return file_.error(error);
      if (object.kind != Json::Kind::Object) return file_.error("expected a JSON object");
      DATALOG_RETURN_IF_ERROR(object.member("a") ? fact(object) : entity(object));
      DATALOG_RETURN_IF_ERROR(target_.entity_done());
    }
    return file_.status();
  }

 private:
  ast::Fact new_fact() const {
    ast::Fact f;
    f.pos = ast::SourcePos{static_cast<int>(file_.line_number()), 1};
    return f;
  }

  Status entity_of(const Json* j, Value* out) const {
    std::optional<Value> e;
    if (j && (j->kind == Json::Kind::String || j->kind == Json::Kind::Number)) e = entity_from_text(j->text);
    if (!e) return file_.error("\"e\" must be an entity: ':ident', a uuid or an integer id");
    *out = std::move(*e);
    return Status::OK();
  }

  Status value_of(const Json& j, const std::optional<ValueKind>& kind, Value* out) {
    if (j.kind == Json::Kind::Array || j.kind == Json::Kind::Object) {
      return file_.error("a value must be a string, number, boolean or null");
    }
    if (!kind) {
      switch (j.kind) {
        case Json::Kind::Null: *out = Value::nil(); return Status::OK();
        case Json::Kind::Boolean: *out = Value::boolean(j.boolean); return Status::OK();
        case Json::Kind::String: *out = Value::string(j.text); return Status::OK();
        default: break;
      }
      *out = infer_value(j.text);
      if (out->is(ValueKind::String)) return file_.error(fmt::format("bad number {}", j.text));
      return Status::OK();
    }
    const std::string text = j.kind == Json::Kind::Boolean ? (j.boolean ? "true" : "false") : j.text;
    if (j.kind == Json::Kind::Null && *kind != ValueKind::Nil) return file_.error("null given for a non-nil vtype");
    std::optional<Value> v;
    std::string error;
    DATALOG_RETURN_IF_ERROR(typed_value(text, *kind, target_.writer(), &v, &error));
    if (!v) return file_.error(error);
    *out = std::move(*v);
    return Status::OK();
  }

  Status time_of(const Json* j, std::string_view key, std::optional<std::int64_t>* out) {
    if (!j || j->kind == Json::Kind::Null) return Status::OK();
    Value v;
    DATALOG_RETURN_IF_ERROR(value_of(*j, ValueKind::Instant, &v));
    (void)key;
    *out = v.as_instant();
    return Status::OK();
  }

  Status fact(const Json& o) {
    ast::Fact f = new_fact();
    DATALOG_RETURN_IF_ERROR(entity_of(o.member("e"), &f.e));
    const Json* a = o.member("a");
    if (a->kind != Json::Kind::String || !is_keyword_text(a->text)) {
      return file_.error("\"a\" must be an attribute keyword (\":name\")");
    }
    f.a = Value::keyword(a->text);
    std::optional<ValueKind> kind;
    if (const Json* t = o.member("vtype"); t && t->kind != Json::Kind::Null) {
      kind = t->kind == Json::Kind::String ? kind_from_name(t->text) : std::nullopt;
      if (!kind) return file_.error(fmt::format("\"vtype\" must be one of {}", kind_names_list()));
    }
    const Json* v = o.member("v");
    if (!v) return file_.error("a fact needs \"v\"");
    DATALOG_RETURN_IF_ERROR(value_of(*v, kind, &f.v));
    DATALOG_RETURN_IF_ERROR(time_of(o.member("valid_from"), "valid_from", &f.valid_from));
    DATALOG_RETURN_IF_ERROR(time_of(o.member("valid_to"), "valid_to", &f.valid_to));
    for (const auto& [key, value] : o.members) {
      if (key != "e" && key != "a" && key != "v" && key != "vtype" && key != "valid_from" && key != "valid_to") {
        return file_.error(fmt::format("unknown key \"{}\" in a fact (e, a, v, vtype, valid_from, valid_to)", key));
      }
    }
    target_.add(std::move(f));
    return Status::OK();
  }

  Status entity(const Json& o) {
    Value e;  // nil: found by upsert or made new, as a transact entity map
    if (const Json* id = o.member(":db/id")) DATALOG_RETURN_IF_ERROR(entity_of(id, &e));
    const int map_index = next_map_++;
    for (const auto& [key, value] : o.members) {
      if (key == ":db/id") continue;
      if (!is_keyword_text(key)) {
        return file_.error(fmt::format("key \"{}\" is not an attribute (\":name\"), and the object has no \"a\"", key));
      }
      const std::vector<Json> one{value};
      for (const Json& item : value.kind == Json::Kind::Array ? value.items : one) {
        ast::Fact f = new_fact();
        f.e = e;
        f.a = Value::keyword(key);
        f.entity_map = map_index;
        DATALOG_RETURN_IF_ERROR(value_of(item, std::nullopt, &f.v));
        target_.add(std::move(f));
      }
    }
    return Status::OK();
  }

  ImportTarget& target_;
  InputFile& file_;
  int next_map_ = 0;
};

}  // namespace

Status import_jsonl(ImportTarget& target) { return JsonLinesImport(target).run(); }

}  // namespace datalog::ext::io
