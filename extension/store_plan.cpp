#include "extension/store_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lmdb_store/key_coding.h"

namespace datalog::ext {

const char* plan_index_name(PlanIndex index) {
  switch (index) {
    case PlanIndex::Scan: return "scan";
    case PlanIndex::Eavt: return "eavt";
    case PlanIndex::Aevt: return "aevt";
    case PlanIndex::Avet: return "avet";
    case PlanIndex::Vaet: return "vaet";
  }
  return "?";
}

StorePlan choose_store_plan(const UsableConstraints& usable, const store::GraphStats& stats) {
  const double n = std::max<double>(static_cast<double>(stats.records), 1.0);
  const double entities = std::max<double>(static_cast<double>(stats.entities), 1.0);
  const double attributes = std::max<double>(static_cast<double>(stats.attributes), 1.0);
  const double seek = std::log2(n) + 1.0;
  const double per_entity = std::max(n / entities, 1.0);
  const double per_attribute = std::max(n / attributes, 1.0);
  const double per_entity_attribute = std::max(per_entity / std::min(attributes, per_entity), 1.0);
  const double per_attribute_value = std::max(per_attribute / std::min(per_attribute, entities), 1.0);

  StorePlan best;
  best.index = PlanIndex::Scan;
  best.rows = n;
  best.cost = n * 1.1 + seek;
  auto consider = [&](PlanIndex index, UsableConstraints use, double rows, double seeks) {
    const double cost = seeks * seek + rows;
    if (cost < best.cost) best = StorePlan{index, use, cost, rows};
  };
  if (usable.e) {
    UsableConstraints use;
    use.e = true;
    double rows = per_entity;
    if (usable.a) {
      use.a = true;
      rows = per_entity_attribute;
      if (usable.v) {
        use.v = use.vtype = true;
        use.vtype = usable.vtype;
        rows = 1.0;
      }
    }
    consider(PlanIndex::Eavt, use, rows, 1.0);
  }
  if (usable.a) {
    UsableConstraints use;
    use.a = true;
    if (usable.v) {
      use.v = true;
      use.vtype = usable.vtype;
      consider(PlanIndex::Avet, use, per_attribute_value, 1.0);
    } else if (usable.lower || usable.upper) {
      use.lower = usable.lower;
      use.upper = usable.upper;
      consider(PlanIndex::Avet, use, per_attribute / (usable.lower && usable.upper ? 4.0 : 2.0),
               2.0);
    }
    UsableConstraints attr_only;
    attr_only.a = true;
    consider(PlanIndex::Aevt, attr_only, per_attribute, 1.0);
  }
  if (usable.v && usable.vtype) {
    UsableConstraints use;
    use.v = use.vtype = true;
    // Only references are in VAET; another vtype makes xFilter fall back to a full scan.
    consider(PlanIndex::Vaet, use, per_entity, 1.0);
  }
  return best;
}

namespace {

enum class SqlClass { Null = 0, Numeric = 1, Text = 2, Blob = 3 };

SqlClass class_of(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
    case SQLITE_FLOAT: return SqlClass::Numeric;
    case SQLITE_TEXT: return SqlClass::Text;
    case SQLITE_BLOB: return SqlClass::Blob;
    default: return SqlClass::Null;
  }
}

std::string kind_start(ValueKind k) { return std::string(1, static_cast<char>(k)); }
std::string kind_end(ValueKind k) { return std::string(1, static_cast<char>(static_cast<int>(k) + 1)); }

std::int64_t clamp_to_int(double d) {
  constexpr double kTwo63 = 9223372036854775808.0;  // exactly representable
  if (!(d >= -kTwo63)) return std::numeric_limits<std::int64_t>::min();
  if (!(d < kTwo63)) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(d);
}

// Where a range over kind k starts for a lower bound of the same SQL class (or the kind's start).
std::string narrowed(ValueKind k, sqlite3_value* bound, bool upper) {
  std::string key;
  switch (k) {
    case ValueKind::Integer: {
      const double d = sqlite3_value_double(bound);
      const std::int64_t i = sqlite3_value_type(bound) == SQLITE_INTEGER
                                 ? sqlite3_value_int64(bound)
                                 : clamp_to_int(upper ? std::ceil(d) : std::floor(d));
      store::encode_value(key, Value::integer(i));
      return upper ? store::prefix_successor(key) : key;
    }
    case ValueKind::Float: {
      store::encode_value(key, Value::floating(sqlite3_value_double(bound)));
      return upper ? store::prefix_successor(key) : key;
    }
    case ValueKind::String:
    case ValueKind::Keyword: {
      const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(bound));
      const std::string_view text(p ? p : "", static_cast<std::size_t>(sqlite3_value_bytes(bound)));
      key = store::encode_text_prefix(k, text);
      return upper ? store::prefix_successor(key) : key;
    }
    case ValueKind::Bytes: {
      const auto* p = static_cast<const char*>(sqlite3_value_blob(bound));
      const std::string_view bytes(p ? p : "", static_cast<std::size_t>(sqlite3_value_bytes(bound)));
      key = store::encode_text_prefix(k, bytes);
      return upper ? store::prefix_successor(key) : key;
    }
    default:
      return upper ? kind_end(k) : kind_start(k);
  }
}

// The SQL classes a stored kind can show as (a ref is TEXT with an ident, else INTEGER).
std::vector<SqlClass> classes_of(ValueKind k) {
  switch (k) {
    case ValueKind::Integer:
    case ValueKind::Float:
    case ValueKind::Boolean: return {SqlClass::Numeric};
    case ValueKind::Ref: return {SqlClass::Numeric, SqlClass::Text};
    case ValueKind::String:
    case ValueKind::Keyword:
    case ValueKind::Instant:
    case ValueKind::Uuid: return {SqlClass::Text};
    case ValueKind::Bytes: return {SqlClass::Blob};
    case ValueKind::Nil: return {SqlClass::Null};
  }
  return {};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> value_ranges(sqlite3_value* lower,
                                                              sqlite3_value* upper) {
  std::vector<std::pair<std::string, std::string>> out;
  const SqlClass lo = lower ? class_of(lower) : SqlClass::Null;
  const SqlClass hi = upper ? class_of(upper) : SqlClass::Blob;
  if ((lower && lo == SqlClass::Null) || (upper && hi == SqlClass::Null)) return out;
  for (int raw = 0; raw <= static_cast<int>(ValueKind::Nil); ++raw) {
    const auto k = static_cast<ValueKind>(raw);
    bool include = false, narrow_lo = false, narrow_hi = false;
    for (SqlClass c : classes_of(k)) {
      if (c == SqlClass::Null) continue;
      const bool lower_ok = !lower || c >= lo;
      const bool upper_ok = !upper || c <= hi;
      if (!lower_ok || !upper_ok) continue;
      include = true;
      if (classes_of(k).size() == 1) {
        narrow_lo = lower && c == lo;
        narrow_hi = upper && c == hi;
      }
    }
    if (!include) continue;
    std::string from = narrow_lo ? narrowed(k, lower, false) : kind_start(k);
    std::string to = narrow_hi ? narrowed(k, upper, true) : kind_end(k);
    if (from < to) out.emplace_back(std::move(from), std::move(to));
  }
  return out;
}

}  // namespace datalog::ext
