// engine/value_hash.h: hashing Values and rows of Values for hash joins and sets.
// Equal values (operator==, so -0.0 and 0.0) hash equal.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "engine/value.h"

namespace datalog {

std::size_t hash_value(const Value& v);

struct ValueHash {
  std::size_t operator()(const Value& v) const { return hash_value(v); }
};

struct RowHash {
  std::size_t operator()(std::span<const Value> row) const {
    std::size_t h = 0x9e3779b97f4a7c15ULL;
    for (const Value& v : row) h = (h ^ hash_value(v)) * 0x100000001b3ULL + (h >> 17);
    return h;
  }
};

}  // namespace datalog
