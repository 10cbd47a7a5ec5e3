// extension/io/typed_text.h: a value as text plus its vtype, both ways, for CSV and JSON Lines.
//
// The pair is the store table's (v, vtype) (extension/sql_values.h, README "Values in SQL"), so
// a file reads like SELECT e, a, v, vtype FROM g: an entity is its ident (':alice', a uuid's
// text) or its integer id; a ref is the entity it names; an instant ISO text; bytes lowercase
// hex; nil empty. Without a vtype, text is inferred (infer_value).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/value.h"
#include "engine/storage.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::ext::io {

using store::Status;

// An entity written as text: ':keyword' or uuid text (an ident), or an integer id.
std::optional<Value> entity_from_text(std::string_view text);
// An entity's text: its ident's, else its id.
std::string entity_text(EntityId id, const std::optional<Value>& ident);

// The text and vtype name of v; a ref shows the ident of the entity it names (ref_ident).
std::string value_text(const Value& v, const std::optional<Value>& ref_ident);

// The value `text` stands for as a `kind` (a vtype name: see kind_from_name); entities of refs
// are found or made through graph. *error on bad text.
Status typed_value(std::string_view text, ValueKind kind, GraphWriter& graph,
                   std::optional<Value>* out, std::string* error);
// Without a vtype: an integer, a float, true / false, else a string.
Value infer_value(std::string_view text);

}  // namespace datalog::ext::io
