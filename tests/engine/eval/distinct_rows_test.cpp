// DistinctRows (engine/eval/distinct_rows.h): each row kept once, in the order first added,
// through growth of its table, for rows of strings and of no columns at all.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/eval/distinct_rows.h"

namespace datalog::eval {
namespace {

TEST_CASE("distinct rows: duplicates dropped, first occurrences kept in order", "[distinct-rows]") {
  DistinctRows distinct;  // no size hint: the table grows several times
  std::vector<std::string> expected;
  Row row;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 500; ++i) {
      row = {Value::integer(i % 250), Value::string("name-with-no-short-string-" + std::to_string(i % 250))};
      const bool added = distinct.insert_moved(row);
      CHECK(added == (round == 0 && i < 250));
      if (added) expected.push_back(std::to_string(i % 250));
    }
  }
  // An integer and a string of the same digits are different values.
  row = {Value::string("0"), Value::string("name-with-no-short-string-0")};
  CHECK(distinct.insert_moved(row));
  expected.push_back("\"0\"");
  const RowStore& rows = distinct.rows();
  REQUIRE(rows.size() == expected.size());
  for (std::size_t r = 0; r < rows.size(); ++r) CHECK(rows[r][0].to_edn() == expected[r]);
}

TEST_CASE("distinct rows: rows without columns are one row", "[distinct-rows]") {
  DistinctRows distinct(4);
  Row empty;
  CHECK(distinct.insert_moved(empty));
  CHECK_FALSE(distinct.insert_moved(empty));
  CHECK(distinct.rows().size() == 1);
}

}  // namespace
}  // namespace datalog::eval
