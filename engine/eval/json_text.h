// engine/eval/json_text.h: JSON text for pulled values (engine/eval/pull_evaluator.h), written
// so that SQLite's JSON functions read it back.
//
// The mapping, one rule per value kind (entities are written by the caller, who knows idents):
//   string   a JSON string, escaped (", \, and control characters; other bytes as they are)
//   integer  a JSON number: 42
//   float    a JSON number that always has a '.' or an exponent (1.0, 2.5, 1.0e+300), so
//            json_extract gives REAL back; NaN and the infinities have no JSON form: null
//   boolean  true / false
//   keyword  a JSON string with the colon: ":status/active"
//   instant  a JSON string, ISO 8601 UTC as in SQL: "2024-01-01T00:00:00.000Z"
//   uuid     a JSON string, lowercase 8-4-4-4-12 as in SQL
//   bytes    a JSON string of lowercase hex digits, as value.h writes #bytes
//   nil      null
#pragma once

#include <string>
#include <string_view>

#include "engine/value.h"

namespace datalog::eval {

void append_json_string(std::string& out, std::string_view text);
void append_json_float(std::string& out, double d);
// Every kind but Ref (the caller writes entities).
void append_json_scalar(std::string& out, const Value& v);

}  // namespace datalog::eval
