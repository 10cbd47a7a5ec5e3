// JSON Lines: one fact object a line, every valid-time window as of the snapshot (what
// import_jsonl reads back): {"e":":alice","a":":age","v":30,"vtype":"integer",
// "valid_from":"2024-01-01T00:00:00.000Z"} plus "valid_to" when the window ends.
#include <cmath>

#include <fmt/format.h>

#include "engine/time_text.h"
#include "extension/io/export_formats.h"
#include "extension/io/fact_scan.h"
#include "extension/io/json_line.h"
#include "extension/io/typed_text.h"

namespace datalog::ext::io {

namespace {

std::string json_value(const Value& v, const std::optional<Value>& ref_ident) {
  switch (v.kind()) {
    case ValueKind::Integer: return fmt::format("{}", v.as_integer());
    case ValueKind::Float:
      if (std::isinf(v.as_float())) break;
      return fmt::format("{}", v.as_float());
    case ValueKind::Boolean: return v.as_boolean() ? "true" : "false";
    case ValueKind::Nil: return "null";
    case ValueKind::Ref:
      if (!ref_ident) return fmt::format("{}", v.as_ref());
      break;
    default: break;
  }
  return json_string(value_text(v, ref_ident));
}

}  // namespace

Status export_jsonl(ExportContext& c, std::uint64_t* facts) {
  TimeView all_windows;
  all_windows.any_valid_time = true;
  FactScan scan(c.graph, c.probe, c.progress);
  std::string line;
  DATALOG_RETURN_IF_ERROR(scan.run(all_windows, [&](const ScannedFact& f) {
    const Datom& d = f.datom;
    const std::string e = f.entity_ident ? json_string(entity_text(d.e, f.entity_ident)) : fmt::format("{}", d.e);
    line = fmt::format(R"({{"e":{},"a":{},"v":{},"vtype":"{}","valid_from":"{}")", e,
                       json_string(f.attribute.as_keyword()), json_value(d.v, f.ref_ident),
                       kind_name(d.v.kind()), format_instant(d.valid_from));
    if (d.valid_to != kForever) line += fmt::format(R"(,"valid_to":"{}")", format_instant(d.valid_to));
    line += "}\n";
    c.out.write(line);
    return Status::OK();
  }));
  *facts = scan.facts();
  return Status::OK();
}

}  // namespace datalog::ext::io
