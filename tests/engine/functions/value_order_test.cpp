// compare_for_order (the total order that sorts window partitions) and window_sort_order.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "engine/functions/value_order.h"
#include "engine/functions/window.h"
#include "test_support.h"

using namespace fntest;
using datalog::functions::compare_for_order;
using datalog::functions::window_sort_order;

namespace {
bool before(const Value& a, const Value& b) { return compare_for_order(a, b) < 0; }
bool same(const Value& a, const Value& b) { return compare_for_order(a, b) == 0; }
}  // namespace

TEST_CASE("compare_for_order agrees with < for numbers and strings") {
  CHECK(before(I(1), I(2)));
  CHECK(before(I(1), F(1.5)));
  CHECK(before(F(0.5), I(1)));
  CHECK(before(F(-1.0), F(0.0)));
  CHECK(before(S("a"), S("b")));
  CHECK(before(S("Z"), S("a")));
  CHECK(before(T(1), T(2)));
}

TEST_CASE("compare_for_order refines numeric ties by kind, so equivalence is equality") {
  CHECK(before(I(1), F(1.0)));
  CHECK_FALSE(before(F(1.0), I(1)));
  CHECK(same(I(1), I(1)));
  CHECK(same(F(0.0), F(-0.0)));
  CHECK_FALSE(same(I(0), F(0.0)));
  // Numeric order still wins over kind: 2 > 1.5 although Integer < Float as kinds.
  CHECK(before(F(1.5), I(2)));
}

TEST_CASE("compare_for_order: strings < numbers < other kinds in the Value order") {
  CHECK(before(S("zzz"), I(-1000)));
  CHECK(before(F(1e300), B(false)));
  CHECK(before(B(true), T(0)));
  CHECK(before(T(5), R(0)));
  CHECK(before(R(9), U(0)));
  CHECK(before(U(0), K(":a")));
  CHECK(before(K(":z"), Bytes("")));
  CHECK(before(Bytes("\xff"), Nil()));
  CHECK(before(B(false), B(true)));
  CHECK(before(K(":a"), K(":b")));
  CHECK(same(Nil(), Nil()));
}

TEST_CASE("compare_for_order puts NaN after every number") {
  const double nan = std::nan("");
  CHECK(before(F(std::numeric_limits<double>::infinity()), F(nan)));
  CHECK(before(I(std::numeric_limits<std::int64_t>::max()), F(nan)));
  CHECK(same(F(nan), F(nan)));
  CHECK(before(F(nan), B(false)));
}

TEST_CASE("compare_for_order is a strict weak order over mixed values") {
  const std::int64_t big = (std::int64_t{1} << 53) + 1;
  const std::vector<Value> values = {I(big),
                                     F(static_cast<double>(big - 1)),
                                     I(big - 1),
                                     I(1),
                                     F(1.0),
                                     F(0.5),
                                     I(0),
                                     F(-0.0),
                                     F(0.0),
                                     S("b"),
                                     S("a"),
                                     B(true),
                                     B(false),
                                     Nil(),
                                     K(":x"),
                                     R(1),
                                     T(1),
                                     U(1),
                                     F(std::nan("")),
                                     Bytes("q")};
  for (const Value& a : values) {
    CHECK_FALSE(before(a, a));
    for (const Value& b : values) {
      // Asymmetry, and equivalence is structural equality.
      if (before(a, b)) CHECK_FALSE(before(b, a));
      CHECK(same(a, b) == (a == b));
      for (const Value& c : values) {
        if (before(a, b) && before(b, c)) CHECK(before(a, c));
      }
    }
  }
}

TEST_CASE("window_sort_order sorts ascending, stably") {
  const std::vector<Value> keys = {I(3), I(1), F(2.5), I(1), S("a")};
  const std::vector<std::size_t> order = window_sort_order(keys, /*descending=*/false);
  CHECK(order == std::vector<std::size_t>{4, 1, 3, 2, 0});
}

TEST_CASE("window_sort_order sorts descending, keeping ties in input order") {
  const std::vector<Value> keys = {I(1), I(3), I(2), I(3), Nil()};
  const std::vector<std::size_t> order = window_sort_order(keys, /*descending=*/true);
  CHECK(order == std::vector<std::size_t>{4, 1, 3, 2, 0});
}

TEST_CASE("window_sort_order of an empty partition is empty") {
  CHECK(window_sort_order({}, false).empty());
}

TEST_CASE("window_sort_order polls while it sorts and stops when the poll says so") {
  std::vector<Value> keys;
  std::mt19937_64 random(7);
  for (int i = 0; i < 200'000; ++i) keys.push_back(I(static_cast<std::int64_t>(random() % 1000)));
  int polls = 0;
  std::vector<std::size_t> order;
  const datalog::Status stopped = window_sort_order(
      keys, false,
      [&polls] {
        return ++polls < 3 ? datalog::Status::OK()
                           : datalog::Status(datalog::StatusCode::Interrupted, "interrupted");
      },
      &order);
  CHECK(stopped.code() == datalog::StatusCode::Interrupted);
  CHECK(polls == 3);  // asked again every few thousand comparisons, not only at the end
  // Not stopped: the same order as without a poll.
  polls = 0;
  REQUIRE(window_sort_order(keys, false, [&polls] { return ++polls, datalog::Status::OK(); }, &order).ok());
  CHECK(polls > 100);
  CHECK(order == window_sort_order(keys, false));
}
