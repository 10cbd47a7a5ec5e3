// NameMap (engine/eval/name_map.h): the first value given for a name stays, whether the map is
// still searched in order or already indexed; against std::map over the same names.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "engine/eval/name_map.h"

using datalog::eval::NameMap;

TEST_CASE("name map: the first value of each name, below and past the indexed size", "[name_map]") {
  for (const std::size_t distinct : {1, 5, 16, 17, 40, 1000}) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < distinct; ++i) names.push_back("?v" + std::to_string(i * 7919 % 1009));
    NameMap<std::size_t> map;
    std::map<std::string, std::size_t> expected;
    for (std::size_t round = 0; round < 2; ++round) {  // every name twice: the second insert loses
      for (std::size_t i = 0; i < names.size(); ++i) {
        const bool fresh = expected.emplace(names[i], round * 10000 + i).second;
        CHECK(map.insert(names[i], round * 10000 + i) == fresh);
      }
    }
    for (const auto& [name, value] : expected) {
      const std::size_t* found = map.find(name);
      REQUIRE(found);
      CHECK(*found == value);
      CHECK(map.count(name) == 1);
    }
    CHECK(map.find("?absent") == nullptr);
    CHECK(map.count("?absent") == 0);
  }
}
