// KeyIndex (engine/eval/key_index.h): every entry with an equal key is found, in the order it
// was added, whatever the collisions; against a plain multimap over random keys.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <vector>

#include "engine/eval/key_index.h"

using datalog::Value;
using datalog::eval::KeyIndex;

namespace {

std::vector<std::uint32_t> found(const KeyIndex& index, const std::vector<Value>& key) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t e = index.find(key); e != KeyIndex::kNone; e = index.next(e)) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("KeyIndex finds equal keys in the order they were added") {
  KeyIndex index(2);
  index.add(std::vector<Value>{Value::ref(1), Value::string("a")});
  index.add(std::vector<Value>{Value::ref(2), Value::string("a")});
  index.add(std::vector<Value>{Value::ref(1), Value::string("a")});
  index.add(std::vector<Value>{Value::ref(1), Value::keyword(":a")});
  index.build();
  CHECK(found(index, {Value::ref(1), Value::string("a")}) == std::vector<std::uint32_t>{0, 2});
  CHECK(found(index, {Value::ref(2), Value::string("a")}) == std::vector<std::uint32_t>{1});
  CHECK(found(index, {Value::ref(1), Value::keyword(":a")}) == std::vector<std::uint32_t>{3});
  // Kinds count: an integer is not the ref with the same number, a string not the keyword.
  CHECK_FALSE(index.contains(std::vector<Value>{Value::integer(1), Value::string("a")}));
  CHECK_FALSE(index.contains(std::vector<Value>{Value::ref(1), Value::string(":a")}));
}

TEST_CASE("KeyIndex treats -0.0 and 0.0 as one key, as Value equality does") {
  KeyIndex index(1);
  index.add(std::vector<Value>{Value::floating(-0.0)});
  index.build();
  CHECK(index.contains(std::vector<Value>{Value::floating(0.0)}));
}

TEST_CASE("KeyIndex of width 0: every entry has the empty key") {
  KeyIndex empty(0);
  empty.build();
  CHECK_FALSE(empty.contains(std::vector<Value>{}));
  KeyIndex index(0);
  index.add(std::vector<Value>{});
  index.add(std::vector<Value>{});
  index.build();
  CHECK(found(index, {}) == std::vector<std::uint32_t>{0, 1});
}

TEST_CASE("KeyIndex before build finds nothing") {
  KeyIndex index(1);
  index.add(std::vector<Value>{Value::integer(7)});
  CHECK(index.find(std::vector<Value>{Value::integer(7)}) == KeyIndex::kNone);
}

TEST_CASE("KeyIndex agrees with a multimap over random keys") {
  std::mt19937 rng(12345);
  for (int round = 0; round < 20; ++round) {
    const int n = static_cast<int>(rng() % 3000);
    const int distinct = 1 + static_cast<int>(rng() % 200);
    KeyIndex index(2);
    std::map<std::pair<int, int>, std::vector<std::uint32_t>> model;
    for (int i = 0; i < n; ++i) {
      const int a = static_cast<int>(rng() % static_cast<unsigned>(distinct));
      const int b = static_cast<int>(rng() % 3);
      index.add(std::vector<Value>{Value::integer(a), b == 2 ? Value::string("x") : Value::integer(b)});
      model[{a, b}].push_back(static_cast<std::uint32_t>(i));
    }
    index.build();
    CHECK(index.size() == static_cast<std::size_t>(n));
    for (int a = -1; a <= distinct; ++a) {
      for (int b = 0; b < 3; ++b) {
        const std::vector<Value> key{Value::integer(a), b == 2 ? Value::string("x") : Value::integer(b)};
        auto it = model.find({a, b});
        CHECK(found(index, key) == (it == model.end() ? std::vector<std::uint32_t>{} : it->second));
      }
    }
  }
}
