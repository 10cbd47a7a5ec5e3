// RowStore (engine/eval/relation.h): rows side by side, moved in or copied, filtered in place,
// and relations without columns that still count their rows.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "engine/eval/relation.h"

namespace datalog::eval {
namespace {

std::vector<std::string> texts(const RowStore& rows) {
  std::vector<std::string> out;
  for (RowView row : rows) {
    std::string line;
    for (const Value& v : row) line += v.to_edn() + " ";
    out.push_back(line);
  }
  return out;
}

TEST_CASE("row store: rows copied and moved in keep their values and order", "[relation]") {
  RowStore rows;
  Row next{Value::string("a long text that does not fit inline"), Value::integer(1)};
  rows.push_back(RowView(next));
  rows.push_back(std::move(next));  // moved: next keeps its storage, to be refilled
  next.assign({Value::string("b"), Value::integer(2)});
  rows.push_back(std::move(next));
  REQUIRE(rows.size() == 3);
  CHECK(texts(rows) == std::vector<std::string>{"\"a long text that does not fit inline\" 1 ",
                                                "\"a long text that does not fit inline\" 1 ",
                                                "\"b\" 2 "});
  rows.pop_back();
  CHECK(rows.size() == 2);
  CHECK(rows.back()[1] == Value::integer(1));
}

TEST_CASE("row store: keep_if keeps matching rows in order", "[relation]") {
  RowStore rows;
  for (int i = 0; i < 10; ++i) rows.push_back(Row{Value::integer(i), Value::string(std::to_string(i * i))});
  rows.keep_if([](RowView r) { return r[0].as_integer() % 3 != 1; });
  CHECK(texts(rows) == std::vector<std::string>{"0 \"0\" ", "2 \"4\" ", "3 \"9\" ", "5 \"25\" ",
                                                "6 \"36\" ", "8 \"64\" ", "9 \"81\" "});
  rows.keep_if([](RowView) { return false; });
  CHECK(rows.empty());
  rows.push_back(Row{Value::integer(7), Value::nil()});  // usable again after emptying
  CHECK(rows.size() == 1);
}

TEST_CASE("row store: a row widened with nils is filled in place, or taken back", "[relation]") {
  RowStore rows;
  const Row base{Value::integer(1), Value::string("a long text that does not fit inline")};
  std::span<Value> next = rows.push_back_widened(base, 4);
  CHECK(next[2].is(ValueKind::Nil));
  CHECK(next[3].is(ValueKind::Nil));
  next[3] = Value::integer(9);
  rows.push_back_widened(base, 4)[2] = Value::integer(8);
  rows.push_back_widened(base, 4);
  rows.pop_back();  // a row that did not unify
  CHECK(texts(rows) == std::vector<std::string>{
                           "1 \"a long text that does not fit inline\" nil 9 ",
                           "1 \"a long text that does not fit inline\" 8 nil "});
  RowStore unit;
  unit.push_back_widened(RowView(), 0);  // zero columns: still a row
  CHECK(unit.size() == 1);
}

TEST_CASE("row store: a relation without columns counts its rows", "[relation]") {
  Relation unit = Relation::unit();
  CHECK(unit.rows.size() == 1);
  CHECK(unit.rows[0].empty());
  unit.rows.push_back(RowView());
  CHECK(unit.rows.size() == 2);
  unit.rows.pop_back();
  unit.rows.pop_back();
  CHECK(unit.rows.empty());
}

TEST_CASE("row store: moved and recycled stores start clean", "[relation]") {
  for (int round = 0; round < 3; ++round) {  // buffers go back to the thread's spares and return
    RowStore a;
    for (int i = 0; i < 100; ++i) a.push_back(Row{Value::integer(i), Value::integer(round)});
    RowStore b = std::move(a);
    CHECK(a.empty());
    CHECK(b.size() == 100);
    CHECK(b[99][0] == Value::integer(99));
    RowStore c;
    c.push_back(Row{Value::string("x")});  // another width, in a buffer that may be recycled
    CHECK(texts(c) == std::vector<std::string>{"\"x\" "});
    c = std::move(b);
    CHECK(c.size() == 100);
    CHECK(c[0][1] == Value::integer(round));
  }
}

TEST_CASE("large buffer allocator: small blocks from new, large ones mapped and kept",
          "[relation]") {
  release_kept_large_blocks();
  LargeBufferAllocator<Value> alloc;
  const std::size_t small = kLargeBlockBytes / sizeof(Value) / 2;
  const std::size_t large = kLargeBlockBytes / sizeof(Value) * 3;
  Value* a = alloc.allocate(small);
  Value* b = alloc.allocate(large);
  CHECK(reinterpret_cast<std::uintptr_t>(b) % 4096 == 0);  // a mapping of its own
  // Every byte of the large block is writable, up to its last element.
  for (std::size_t i = 0; i < large; i += 4096 / sizeof(Value)) new (&b[i]) Value(Value::integer(1));
  new (&b[large - 1]) Value(Value::integer(7));
  CHECK(b[large - 1] == Value::integer(7));
  alloc.deallocate(b, large);
  alloc.deallocate(a, small);
  CHECK(kept_large_block_bytes() >= large * sizeof(Value));  // kept, not the small one

  // The same size again reuses the kept block; another size maps a new one.
  Value* again = alloc.allocate(large);
  CHECK(again == b);
  CHECK(kept_large_block_bytes() == 0);
  Value* other = alloc.allocate(large * 2);
  CHECK(other != b);
  alloc.deallocate(other, large * 2);
  alloc.deallocate(again, large);
  release_kept_large_blocks();
  CHECK(kept_large_block_bytes() == 0);
}

TEST_CASE("large buffer allocator: blocks of 2 MB and more sit on huge-page bounds", "[relation]") {
  release_kept_large_blocks();
  LargeBufferAllocator<char> alloc;
  const std::size_t huge = (std::size_t{2} << 20) + 1;
  char* p = alloc.allocate(huge);
  CHECK(reinterpret_cast<std::uintptr_t>(p) % (std::size_t{2} << 20) == 0);
  p[huge - 1] = 1;
  alloc.deallocate(p, huge);
  CHECK(kept_large_block_bytes() == std::size_t{4} << 20);  // two huge pages
  release_kept_large_blocks();
}

TEST_CASE("large buffer allocator: kept blocks stay within their bound, oldest given back first",
          "[relation]") {
  release_kept_large_blocks();
  LargeBufferAllocator<char> alloc;
  const std::size_t block = std::size_t{8} << 20;
  std::vector<char*> blocks;
  for (std::size_t i = 0; i < kMaxKeptBytes / block + 4; ++i) blocks.push_back(alloc.allocate(block));
  for (char* p : blocks) alloc.deallocate(p, block);
  CHECK(kept_large_block_bytes() == kMaxKeptBytes);
  // The newest kept blocks are the ones handed out again.
  char* reused = alloc.allocate(block);
  CHECK(reused == blocks.back());
  alloc.deallocate(reused, block);
  release_kept_large_blocks();
}

TEST_CASE("large buffer allocator: a forked child takes and gives back blocks", "[relation]") {
  LargeBufferAllocator<char> alloc;
  const std::size_t block = kLargeBlockBytes * 2;
  char* kept_one = alloc.allocate(block);
  alloc.deallocate(kept_one, block);  // the child inherits a kept block
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    char* p = alloc.allocate(block);
    p[block - 1] = 1;
    alloc.deallocate(p, block);
    char* q = alloc.allocate(block * 2);
    alloc.deallocate(q, block * 2);
    ::_exit(p == kept_one ? 0 : 3);
  }
  int status = -1;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  release_kept_large_blocks();
}

TEST_CASE("row store: a relation grown past the large-block size keeps its rows", "[relation]") {
  RowStore rows;
  const std::size_t count = kLargeBlockBytes / sizeof(Value);  // two cells a row: twice the size
  Row row(2);
  for (std::size_t i = 0; i < count; ++i) {
    row[0] = Value::integer(static_cast<std::int64_t>(i));
    row[1] = Value::string(i % 1000 == 0 ? "a long text that does not fit inline" : "x");
    rows.push_back(RowView(row));
  }
  REQUIRE(rows.size() == count);
  CHECK(rows[0][1] == Value::string("a long text that does not fit inline"));
  CHECK(rows[count - 1][0] == Value::integer(static_cast<std::int64_t>(count - 1)));
  CHECK(rows[count - 1][1] == Value::string("x"));
  RowStore moved = std::move(rows);
  CHECK(moved.size() == count);
  CHECK(moved[count / 2][0] == Value::integer(static_cast<std::int64_t>(count / 2)));
}

TEST_CASE("row store: rows across many chunks are filtered, popped, copied and grown again",
          "[relation]") {
  // Three cells a row: a 2 MB chunk holds 16,384 rows, so 100,000 rows take seven chunks.
  constexpr std::int64_t kRows = 100'000;
  RowStore rows;
  for (std::int64_t i = 0; i < kRows; ++i) {
    rows.push_back(Row{Value::integer(i), Value::integer(i * 2), Value::string(std::to_string(i))});
  }
  REQUIRE(rows.size() == kRows);
  bool all_there = true;
  std::int64_t expected = 0;
  for (RowView row : rows) all_there = all_there && row[0] == Value::integer(expected++);
  CHECK(all_there);
  CHECK(rows[16'383][2] == Value::string("16383"));
  CHECK(rows[16'384][2] == Value::string("16384"));  // the first row of the second chunk

  // Keep every third row: rows move back across chunk bounds, and emptied chunks go.
  rows.keep_if([](RowView r) { return r[0].as_integer() % 3 == 0; });
  REQUIRE(rows.size() == static_cast<std::size_t>((kRows + 2) / 3));
  CHECK(rows[10'000][0] == Value::integer(30'000));
  CHECK(rows.back()[0] == Value::integer(99'999));

  // Pop back across a chunk bound, then push again.
  while (rows.size() > 16'384) rows.pop_back();
  CHECK(rows.back()[0] == Value::integer(16'383 * 3));
  rows.pop_back();
  rows.push_back(Row{Value::integer(-1), Value::nil(), Value::nil()});
  rows.push_back(Row{Value::integer(-2), Value::nil(), Value::nil()});
  CHECK(rows[16'383][0] == Value::integer(-1));
  CHECK(rows[16'384][0] == Value::integer(-2));

  // A copy holds chunks without spare room: it grows them as it is pushed to.
  RowStore copy = rows;
  for (int i = 0; i < 20'000; ++i) copy.push_back(Row{Value::integer(i), Value::nil(), Value::nil()});
  CHECK(copy.size() == rows.size() + 20'000);
  CHECK(copy[16'384][0] == Value::integer(-2));
  CHECK(copy.back()[0] == Value::integer(19'999));
  CHECK(rows.size() == 16'385);  // the original is untouched

  copy.clear();
  CHECK(copy.empty());
  copy.push_back(Row{Value::string("one column now")});
  CHECK(texts(copy) == std::vector<std::string>{"\"one column now\" "});
}

TEST_CASE("row store: a reserved store takes its first chunk at once, and rows past it in more",
          "[relation]") {
  RowStore rows;
  rows.reserve(50'000, 2);
  for (std::int64_t i = 0; i < 50'000; ++i) rows.push_back_widened(Row{Value::integer(i)}, 2)[1] = Value::integer(-i);
  REQUIRE(rows.size() == 50'000);
  CHECK(rows[49'999][1] == Value::integer(-49'999));
  RowStore none;
  none.reserve(10, 0);
  for (int i = 0; i < 5; ++i) none.push_back(RowView());
  CHECK(none.size() == 5);
  CHECK(none[4].empty());
}

}  // namespace
}  // namespace datalog::eval
