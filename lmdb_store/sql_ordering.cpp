#include "lmdb_store/sql_ordering.h"

#include <cmath>
#include <limits>
#include <string>

#include "lmdb_store/key_coding.h"

namespace datalog::store {

namespace {

// SQL's storage classes in their order.
enum class SqlClass { Null = 0, Numeric = 1, Text = 2, Blob = 3 };

SqlClass class_of(const SqlBound& b) {
  switch (b.type) {
    case SqlBound::Class::Integer:
    case SqlBound::Class::Float: return SqlClass::Numeric;
    case SqlBound::Class::Text: return SqlClass::Text;
    case SqlBound::Class::Blob: return SqlClass::Blob;
    case SqlBound::Class::Null: return SqlClass::Null;
  }
  return SqlClass::Null;
}

std::string kind_start(ValueKind k) { return std::string(1, static_cast<char>(k)); }
std::string kind_end(ValueKind k) { return std::string(1, static_cast<char>(static_cast<int>(k) + 1)); }

std::int64_t clamp_to_int(double d) {
  constexpr double kTwo63 = 9223372036854775808.0;  // exactly representable
  if (!(d >= -kTwo63)) return std::numeric_limits<std::int64_t>::min();
  if (!(d < kTwo63)) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(d);
}

// Where a range over kind k starts (or, upper, ends) for a bound of the kind's own SQL class.
std::string narrowed(ValueKind k, const SqlBound& bound, bool upper) {
  std::string key;
  switch (k) {
    case ValueKind::Integer: {
      const std::int64_t i = bound.type == SqlBound::Class::Integer
                                 ? bound.integer
                                 : clamp_to_int(upper ? std::ceil(bound.real) : std::floor(bound.real));
      encode_value(key, Value::integer(i));
      return upper ? prefix_successor(key) : key;
    }
    case ValueKind::Float: {
      encode_value(key, Value::floating(bound.real));
      return upper ? prefix_successor(key) : key;
    }
    case ValueKind::String:
    case ValueKind::Keyword:
    case ValueKind::Bytes: {
      key = encode_text_prefix(k, bound.bytes);
      return upper ? prefix_successor(key) : key;
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

std::vector<KeyRange> sql_value_ranges(const SqlBound* lower, const SqlBound* upper) {
  std::vector<KeyRange> out;
  const SqlClass lo = lower ? class_of(*lower) : SqlClass::Null;
  const SqlClass hi = upper ? class_of(*upper) : SqlClass::Blob;
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
    std::string from = narrow_lo ? narrowed(k, *lower, false) : kind_start(k);
    std::string to = narrow_hi ? narrowed(k, *upper, true) : kind_end(k);
    if (from < to) out.push_back(KeyRange{std::move(from), std::move(to)});
  }
  return out;
}

}  // namespace datalog::store
