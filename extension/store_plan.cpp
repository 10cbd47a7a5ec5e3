#include "extension/store_plan.h"

#include <cstring>

#include "extension/sql_values.h"

namespace datalog::ext {

StorePlan choose_store_plan(const UsableConstraints& usable, const store::GraphStats& stats) {
  store::ScanShape shape;
  shape.e = usable.e;
  shape.a = usable.a;
  shape.v = usable.v;
  // Only references are in VAET; a vtype other than 'ref' makes xFilter fall back to a scan.
  shape.v_is_ref = usable.v && usable.vtype;
  shape.v_range = usable.lower || usable.upper;
  StorePlan plan;
  plan.scan = store::plan_scan(shape, stats, nullptr, store::ScanChoice::Cheapest);
  const store::ScanShape& use = plan.scan.use;
  plan.use.e = use.e;
  plan.use.a = use.a;
  plan.use.v = use.v;
  plan.use.vtype = use.v && usable.vtype;  // the kind narrows the candidate values
  plan.use.lower = use.v_range && usable.lower;
  plan.use.upper = use.v_range && usable.upper;
  return plan;
}

store::ScanPlan plan_of_filter(int idx_num, const char* codes) {
  store::ScanPlan plan;
  plan.index = static_cast<store::ScanIndex>(idx_num);
  for (const char* c = codes ? codes : ""; *c; ++c) {
    switch (*c) {
      case 'e': plan.use.e = true; break;
      case 'a': plan.use.a = true; break;
      case 'v': plan.use.v = true; break;
      case '>':
      case '<': plan.use.v_range = true; break;
      default: break;
    }
  }
  plan.use.v_is_ref = plan.index == store::ScanIndex::Vaet;
  return plan;
}

store::SqlBound sql_bound(sqlite3_value* v) {
  store::SqlBound b;
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      b.type = store::SqlBound::Class::Integer;
      b.integer = sqlite3_value_int64(v);
      b.real = sqlite3_value_double(v);
      break;
    case SQLITE_FLOAT:
      b.type = store::SqlBound::Class::Float;
      b.real = sqlite3_value_double(v);
      break;
    case SQLITE_TEXT:
      b.type = store::SqlBound::Class::Text;
      b.bytes = text_of(v);
      break;
    case SQLITE_BLOB: {
      b.type = store::SqlBound::Class::Blob;
      const auto* p = static_cast<const char*>(sqlite3_value_blob(v));
      b.bytes = std::string_view(p ? p : "", static_cast<std::size_t>(sqlite3_value_bytes(v)));
      break;
    }
    default: break;
  }
  return b;
}

}  // namespace datalog::ext
