// engine/value.h: the typed values a datom can hold (LANGUAGE.md §3 plus instant, uuid, bytes).
//
// A Value is a small tagged union. Its kinds follow one total order, used for sorting and
// grouping everywhere (query results, the order of keys in every index):
//   string < integer < float < boolean < instant < ref < uuid < keyword < bytes < nil
// (Minigraf's order, with instant, uuid and bytes placed among it). Within a kind the order is
// the natural one: byte order for strings, keywords and bytes; numeric order for integers,
// floats (-0.0 == 0.0; NaN is never stored) and instants; id order for refs.
//
// Thread safety: a Value is a plain value type; const access from many threads is safe.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace datalog {

using EntityId = std::int64_t;

// Integer entity ids an application may use (its own row ids, say); from 2^52 up, ids belong
// to idents (lmdb_store/meta.h kFirstIdentId), so an integer there would name an ident's entity.
inline constexpr EntityId kFirstIdentEntityId = EntityId{1} << 52;
inline bool is_application_entity_id(EntityId id) { return id < kFirstIdentEntityId; }

enum class ValueKind : std::uint8_t {
  String,
  Integer,
  Float,
  Boolean,
  Instant,
  Ref,
  Uuid,
  Keyword,
  Bytes,
  Nil,
};

std::string_view kind_name(ValueKind kind);

// A float as the dialect writes it: shortest round-trip text, always with a '.' ("1.0").
std::string format_float(double d);

struct Instant {  // milliseconds since the Unix epoch, UTC
  std::int64_t ms = 0;
  auto operator<=>(const Instant&) const = default;
};
struct Ref {  // a reference to an entity
  EntityId id = 0;
  auto operator<=>(const Ref&) const = default;
};
struct Uuid {
  std::array<std::uint8_t, 16> bytes{};
  auto operator<=>(const Uuid&) const = default;
};
struct Keyword {  // text includes the leading ':' (":person/name")
  std::string text;
  auto operator<=>(const Keyword&) const = default;
};
struct Bytes {
  std::string data;
  auto operator<=>(const Bytes&) const = default;
};
struct Nil {
  auto operator<=>(const Nil&) const = default;
};

class Value {
 public:
  // Alternatives in ValueKind order, so index() == kind.
  using Storage = std::variant<std::string, std::int64_t, double, bool, Instant, Ref, Uuid,
                               Keyword, Bytes, Nil>;

  Value() : v_(Nil{}) {}
  Value(const Value&) = default;
  Value(Value&&) noexcept = default;
  ~Value() = default;
  // Assignments between values of one kind skip std::variant's visit: scans and joins overwrite
  // a row's cells with values of the kind they held, once per row.
  Value& operator=(const Value& other) {
    if (v_.index() != other.v_.index() || !assign_same_kind(other)) v_ = other.v_;
    return *this;
  }
  Value& operator=(Value&& other) noexcept {
    if (v_.index() != other.v_.index() || !assign_same_kind(std::move(other))) {
      v_ = std::move(other.v_);
    }
    return *this;
  }
  static Value string(std::string s) { return Value(Storage(std::in_place_index<0>, std::move(s))); }
  static Value integer(std::int64_t i) { return Value(Storage(std::in_place_index<1>, i)); }
  static Value floating(double d) { return Value(Storage(std::in_place_index<2>, d)); }
  static Value boolean(bool b) { return Value(Storage(std::in_place_index<3>, b)); }
  static Value instant(std::int64_t ms) { return Value(Storage(Instant{ms})); }
  static Value ref(EntityId id) { return Value(Storage(Ref{id})); }
  static Value uuid(const Uuid& u) { return Value(Storage(u)); }
  static Value keyword(std::string text) { return Value(Storage(Keyword{std::move(text)})); }
  static Value bytes(std::string data) { return Value(Storage(Bytes{std::move(data)})); }
  static Value nil() { return Value(); }

  ValueKind kind() const { return static_cast<ValueKind>(v_.index()); }
  bool is(ValueKind k) const { return kind() == k; }

  const std::string& as_string() const { return std::get<0>(v_); }
  std::int64_t as_integer() const { return std::get<1>(v_); }
  double as_float() const { return std::get<2>(v_); }
  bool as_boolean() const { return std::get<3>(v_); }
  std::int64_t as_instant() const { return std::get<Instant>(v_).ms; }
  EntityId as_ref() const { return std::get<Ref>(v_).id; }
  const Uuid& as_uuid() const { return std::get<Uuid>(v_); }
  const std::string& as_keyword() const { return std::get<Keyword>(v_).text; }
  const std::string& as_bytes() const { return std::get<Bytes>(v_).data; }

  // The total order described at the top of this file.
  std::strong_ordering operator<=>(const Value& other) const;
  // The same as (*this <=> other) == 0, without a visit for the common kinds: joins, groupings
  // and deduplication compare values per row.
  bool operator==(const Value& other) const {
    if (v_.index() != other.v_.index()) return false;
    switch (kind()) {
      case ValueKind::Integer: return as_integer() == other.as_integer();
      case ValueKind::Ref: return as_ref() == other.as_ref();
      case ValueKind::String: return as_string() == other.as_string();
      case ValueKind::Keyword: return as_keyword() == other.as_keyword();
      case ValueKind::Boolean: return as_boolean() == other.as_boolean();
      case ValueKind::Instant: return as_instant() == other.as_instant();
      case ValueKind::Nil: return true;
      default: return (*this <=> other) == 0;  // floats: by their total order
    }
  }

  // EDN-like text: "hi", 42, 3.5, true, #inst "2024-01-01T00:00:00.000Z", #ref 42,
  // #uuid "...", :kw, #bytes "hex", nil. For messages and debugging.
  std::string to_edn() const;

 private:
  explicit Value(Storage v) : v_(std::move(v)) {}

  // Gives this value other's payload, both of one kind; false for the kinds left to
  // std::variant. Other is `const Value&` (std::move below then copies) or `Value&&`.
  template <typename Other>
  bool assign_same_kind(Other&& other) {
    auto& from = other.v_;
    switch (kind()) {
      case ValueKind::Integer: *std::get_if<1>(&v_) = *std::get_if<1>(&from); return true;
      case ValueKind::Ref: *std::get_if<Ref>(&v_) = *std::get_if<Ref>(&from); return true;
      case ValueKind::Float: *std::get_if<2>(&v_) = *std::get_if<2>(&from); return true;
      case ValueKind::Boolean: *std::get_if<3>(&v_) = *std::get_if<3>(&from); return true;
      case ValueKind::Instant: *std::get_if<Instant>(&v_) = *std::get_if<Instant>(&from); return true;
      case ValueKind::String: *std::get_if<0>(&v_) = std::move(*std::get_if<0>(&from)); return true;
      case ValueKind::Keyword:
        std::get_if<Keyword>(&v_)->text = std::move(std::get_if<Keyword>(&from)->text);
        return true;
      case ValueKind::Nil: return true;
      default: return false;  // uuids and bytes: rare in rows
    }
  }

  Storage v_;
};

}  // namespace datalog
