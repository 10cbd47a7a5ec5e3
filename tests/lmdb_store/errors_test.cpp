// Expected failures are Status values with a code and a message naming the file: files that are
// not graphs, missing folders, read-only files, newer formats, a full map, bad values.
#include <lmdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "lmdb_store/catalog.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/table_cursor.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr auto kTimeout = std::chrono::milliseconds(5'000);
constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr EntityId kA = 60;

Status try_open(const std::string& path, const OpenOptions& options = {}) {
  std::shared_ptr<GraphEnv> env;
  return GraphEnv::open(path, options, &env);
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  REQUIRE(out.good());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void check_not_a_graph(const std::string& path) {
  const std::string before = read_file(path);
  const Status st = try_open(path);
  INFO(describe(st));
  CHECK(st.code() == StatusCode::NotAGraph);
  CHECK(st.message().find(path) != std::string::npos);
  CHECK(read_file(path) == before);                      // a failed open leaves the file as it was
  CHECK(::access((path + "-lock").c_str(), F_OK) != 0);  // and makes no lock file beside it
}

std::vector<std::string> seen(GraphEnv& env) {
  ReadSnapshot r(env);
  return as_sorted_text(scan_all(env, r.txn(), IndexId::Eavt, any_time()));
}

TEST_CASE("errors: a file that is not a graph gives NotAGraph naming the path", "[errors]") {
  TempDir dir;
  SECTION("a text file") {
    std::string text;
    for (int i = 0; i < 200; ++i) text += "this is not a graph, line " + std::to_string(i) + "\n";
    write_file(dir.file("notes.txt"), text);
    check_not_a_graph(dir.file("notes.txt"));
  }
  SECTION("an SQLite-like file of random bytes") {
    std::string bytes("SQLite format 3\0", 16);
    std::mt19937_64 rng(3);
    while (bytes.size() < 16 * 1024) bytes += static_cast<char>(rng());
    write_file(dir.file("app.db"), bytes);
    check_not_a_graph(dir.file("app.db"));
  }
  SECTION("an LMDB file that is not ours") {
    const std::string path = dir.file("other.mdb");
    // Written by another process, so this one never has two environments on one file.
    const std::string made = run_in_child([&]() -> std::string {
      MDB_env* env = nullptr;
      MDB_txn* txn = nullptr;
      MDB_dbi dbi = 0;
      if (mdb_env_create(&env) != MDB_SUCCESS) return "create failed";
      if (mdb_env_open(env, path.c_str(), MDB_NOSUBDIR, 0644) != MDB_SUCCESS) return "open failed";
      mdb_txn_begin(env, nullptr, 0, &txn);
      mdb_dbi_open(txn, nullptr, 0, &dbi);
      MDB_val k{5, const_cast<char*>("hello")}, v{5, const_cast<char*>("world")};
      const int rc = mdb_put(txn, dbi, &k, &v, 0);
      mdb_txn_commit(txn);
      mdb_env_close(env);
      return rc == MDB_SUCCESS ? "ok" : "put failed";
    });
    REQUIRE(made == "ok");
    const Status st = try_open(path);
    INFO(describe(st));
    CHECK(st.code() == StatusCode::NotAGraph);
    CHECK(st.message().find(path) != std::string::npos);
    CHECK(st.message().find("'eavt'") != std::string::npos);
  }
}

TEST_CASE("errors: a graph whose meta pages give a bad page size is not a graph", "[errors]") {
  // LMDB divides by that size before checking it: a 0 killed the process with SIGFPE inside
  // mdb_env_open (found by fuzz/fuzz_graph_open.cpp).
  TempDir dir;
  const std::string path = dir.file("g.graph");
  const std::string made = run_in_child([&]() -> std::string {
    std::shared_ptr<GraphEnv> env;
    return GraphEnv::open(path, OpenOptions{}, &env).ok() ? "ok" : "open failed";
  });
  REQUIRE(made == "ok");
  ::unlink((path + "-lock").c_str());
  const std::string pristine = read_file(path);
  constexpr std::size_t kFirstMetaPageSize = 16 + 24;  // page header, then magic ... map size
  constexpr std::size_t kPage = 4096;
  for (std::uint32_t bad : {0u, 1u, 100u, 4095u, 1u << 20}) {
    for (std::size_t meta : {std::size_t{0}, kPage}) {
      INFO("page size " << bad << " in the meta page at " << meta);
      std::string damaged = pristine;
      std::memcpy(damaged.data() + meta + kFirstMetaPageSize, &bad, sizeof bad);
      write_file(path, damaged);
      check_not_a_graph(path);
    }
  }
}

TEST_CASE("errors: a table whose root page number is damaged costs a damage error, not an abort",
          "[errors]") {
  // LMDB looks a named table's root up again in each transaction when a cursor opens, and asserts
  // that it is a page number past the two meta pages: a 1 there killed the process with SIGABRT
  // (found by fuzz/fuzz_graph_open.cpp). Every copy of the table's record in the file is damaged
  // (copy-on-write leaves older ones behind).
  TempDir dir;
  const std::string path = dir.file("g.graph");
  const std::string made = run_in_child([&]() -> std::string {
    std::shared_ptr<GraphEnv> env;
    if (!GraphEnv::open(path, OpenOptions{}, &env).ok()) return "open failed";
    std::unique_ptr<WriteTxn> w;
    if (!WriteTxn::begin(env, kTimeout, &w).ok()) return "begin failed";
    if (!w->assert_fact(1, kA, Value::integer(1), w->tx_time_ms(), kForever).ok()) return "assert failed";
    return w->commit().ok() ? "ok" : "commit failed";
  });
  REQUIRE(made == "ok");
  ::unlink((path + "-lock").c_str());
  std::string bytes = read_file(path);
  // LMDB's node of a named table in the main table: data size 48 (two 16-bit halves), flags
  // F_SUBDATA, key size 4, the key; then the table's record, whose last 8 bytes are its root.
  const std::string node = std::string("\x30\x00\x00\x00\x02\x00\x04\x00", 8) + "eavt";
  constexpr std::size_t kRootInRecord = 40;
  std::size_t copies = 0;
  for (std::size_t at = bytes.find(node); at != std::string::npos; at = bytes.find(node, at + 1)) {
    const std::uint64_t one = 1;
    std::memcpy(bytes.data() + at + node.size() + kRootInRecord, &one, sizeof one);
    ++copies;
  }
  REQUIRE(copies > 0);
  write_file(path, bytes);
  const std::string seen_in_child = run_in_child([&]() -> std::string {
    std::shared_ptr<GraphEnv> env;
    OpenOptions existing;
    existing.create = false;
    const Status opened = GraphEnv::open(path, existing, &env);
    if (!opened.ok()) return "open: " + opened.message();
    ReadSnapshot r(*env);
    TableCursor eavt;
    const Status st = eavt.open(r.txn(), env->tables().eavt, "eavt");
    return st.ok() ? "opened" : std::string(env->damaged() ? "damaged: " : "error: ") + st.message();
  });
  INFO(seen_in_child);
  CHECK(seen_in_child.rfind("damaged: ", 0) == 0);
}

TEST_CASE("errors: paths that cannot be opened give CantOpen naming the path", "[errors]") {
  TempDir dir;
  const std::string in_missing_folder = dir.file("no/such/folder/app.graph");
  Status st = try_open(in_missing_folder);
  INFO(describe(st));
  CHECK(st.code() == StatusCode::CantOpen);
  CHECK(st.message().find(in_missing_folder) != std::string::npos);

  OpenOptions no_create;
  no_create.create = false;
  const std::string missing = dir.file("missing.graph");
  st = try_open(missing, no_create);
  CHECK(st.code() == StatusCode::CantOpen);
  CHECK(st.message().find(missing) != std::string::npos);
  CHECK(::access(missing.c_str(), F_OK) != 0);  // not created

  st = try_open(dir.path());
  CHECK(st.code() == StatusCode::CantOpen);
  CHECK(st.message().find("directory") != std::string::npos);
}

TEST_CASE("errors: a read-only graph file opens for reading and refuses writers", "[errors]") {
  if (::geteuid() == 0) {
    WARN("running as root: file modes do not stop root, so the read-only check is skipped");
    return;
  }
  TempDir dir;
  const std::string path = dir.file("frozen.graph");
  {
    auto env = open_graph(path);
    commit_facts(env, {Datom{1, kA, Value::integer(1), 0, Op::Assert, 0, kForever}});
  }  // closed: the registry holds it only while it is used
  REQUIRE(::chmod(path.c_str(), 0444) == 0);
  auto env = open_graph(path);
  CHECK(env->read_only());
  CHECK(seen(*env) ==
        as_sorted_text({Datom{1, kA, Value::integer(1), 1, Op::Assert, 0, kForever}}));
  std::unique_ptr<WriteTxn> w;
  const Status st = WriteTxn::begin(env, kTimeout, &w);
  INFO(describe(st));
  CHECK(st.code() == StatusCode::ReadOnly);
  CHECK(st.message().find(path) != std::string::npos);
}

TEST_CASE("errors: a graph of a newer format version gives TooNew", "[errors]") {
  TempDir dir;
  const std::string path = dir.file("future.graph");
  {
    auto env = open_graph(path);
    commit_facts(env, {Datom{1, kA, Value::integer(1), 0, Op::Assert, 0, kForever}});
  }
  // Raise the stored format version with raw LMDB, in a fresh process.
  const std::string raised = run_in_child([&]() -> std::string {
    MDB_env* env = nullptr;
    MDB_txn* txn = nullptr;
    MDB_dbi meta = 0;
    mdb_env_create(&env);
    mdb_env_set_maxdbs(env, 16);
    if (mdb_env_open(env, path.c_str(), MDB_NOSUBDIR, 0644) != MDB_SUCCESS) return "open failed";
    mdb_txn_begin(env, nullptr, 0, &txn);
    if (mdb_dbi_open(txn, "meta", 0, &meta) != MDB_SUCCESS) return "no meta table";
    const std::uint32_t newer = kFormatVersion + 1;
    char version[4] = {static_cast<char>(newer >> 24), static_cast<char>(newer >> 16),
                       static_cast<char>(newer >> 8), static_cast<char>(newer)};
    MDB_val k{meta_key::kFormat.size(), const_cast<char*>(meta_key::kFormat.data())};
    MDB_val v{4, version};
    const int rc = mdb_put(txn, meta, &k, &v, 0);
    const int committed = mdb_txn_commit(txn);
    mdb_env_close(env);
    return rc == MDB_SUCCESS && committed == MDB_SUCCESS ? "ok" : "write failed";
  });
  REQUIRE(raised == "ok");
  // Reopen in another fresh process: this one may still have the graph in its registry.
  const std::string opened = run_in_child([&]() -> std::string {
    const Status st = try_open(path);
    return std::string(code_name(st.code())) + "|" + st.message();
  });
  INFO(opened);
  CHECK(opened.rfind("TooNew|", 0) == 0);
  CHECK(opened.find(path) != std::string::npos);
  CHECK(opened.find("format version " + std::to_string(kFormatVersion + 1)) != std::string::npos);
}

TEST_CASE("errors: a full map is grown, the failed transaction leaves nothing, a retry works",
          "[errors][map]") {
  TempDir dir;
  OpenOptions small;
  small.initial_map_bytes = kMiB;
  auto env = open_graph(dir.file("small.graph"), small);
  REQUIRE(env->map_bytes() == kMiB);
  const Datom first{1, kA, Value::string("first"), 0, Op::Assert, 0, kForever};
  commit_facts(env, {first});

  const std::string pad(100, 'p');
  auto big_fact = [&](int j) { return Value::string(std::to_string(j) + pad); };
  constexpr int kMaxFacts = 100'000;  // far more than 1 MiB holds
  int attempted = 0;
  Status failure;
  {
    std::unique_ptr<WriteTxn> w;
    REQUIRE(WriteTxn::begin(env, kTimeout, &w).ok());
    for (int j = 0; j < kMaxFacts && failure.ok(); ++j) {
      failure = w->assert_fact(100 + j, kA, big_fact(j), 0, kForever);
      ++attempted;
    }
    INFO(describe(failure));
    REQUIRE(failure.code() == StatusCode::MapGrown);
    CHECK(failure.message().find("map was full") != std::string::npos);
    CHECK(failure.message().find("grown") != std::string::npos);
    CHECK(failure.message().find(env->path()) != std::string::npos);
    CHECK_FALSE(w->open());  // the whole transaction was rolled back
    CHECK(w->failure().code() == StatusCode::MapGrown);
    CHECK(w->assert_fact(1, kA, Value::integer(1), 0, kForever).code() == StatusCode::MapGrown);
    CHECK(w->commit().code() == StatusCode::MapGrown);
  }
  CHECK(env->map_bytes() > kMiB);
  CHECK(attempted > 100);
  CHECK(seen(*env) ==
        as_sorted_text({Datom{1, kA, Value::string("first"), 1, Op::Assert, 0, kForever}}));
  {
    ReadSnapshot r(*env);
    GraphStats g;
    REQUIRE(read_graph_stats(r.txn(), env->tables(), &g).ok());
    CHECK(g.last_tx == 1);
    CHECK(g.records == 1);
  }

  // The same transaction again fits the grown map.
  std::unique_ptr<WriteTxn> w;
  REQUIRE(WriteTxn::begin(env, std::chrono::milliseconds(100), &w).ok());
  for (int j = 0; j < attempted; ++j) {
    const Status st = w->assert_fact(100 + j, kA, big_fact(j), 0, kForever);
    INFO("fact " << j << ": " << describe(st));
    REQUIRE(st.ok());
  }
  const Status committed = w->commit();
  INFO(describe(committed));
  REQUIRE(committed.ok());
  ReadSnapshot r(*env);
  CHECK(scan_all(*env, r.txn(), IndexId::Eavt, any_time()).size() ==
        static_cast<std::size_t>(attempted) + 1);
  GraphStats g;
  REQUIRE(read_graph_stats(r.txn(), env->tables(), &g).ok());
  CHECK(g.last_tx == 2);
}

TEST_CASE("errors: NaN is refused without failing the transaction", "[errors]") {
  TempDir dir;
  auto env = open_graph(dir.file("nan.graph"));
  std::unique_ptr<WriteTxn> w;
  REQUIRE(WriteTxn::begin(env, kTimeout, &w).ok());
  const Status st = w->assert_fact(1, kA, Value::floating(std::nan("")), 0, kForever);
  CHECK(st.code() == StatusCode::InvalidArgument);
  CHECK(st.message().find("NaN") != std::string::npos);
  CHECK(w->open());
  REQUIRE(w->assert_fact(1, kA, Value::floating(2.5), 0, kForever).ok());
  REQUIRE(w->commit().ok());
  CHECK(seen(*env) ==
        as_sorted_text({Datom{1, kA, Value::floating(2.5), 1, Op::Assert, 0, kForever}}));
}

TEST_CASE("errors: LMDB and errno codes map to status codes with the operation named", "[errors]") {
  const struct {
    int rc;
    StatusCode code;
  } cases[] = {
      {MDB_MAP_FULL, StatusCode::MapFull},     {ENOSPC, StatusCode::Full},
      {MDB_INVALID, StatusCode::NotAGraph}, {MDB_VERSION_MISMATCH, StatusCode::NotAGraph},
      {MDB_CORRUPTED, StatusCode::Corrupt}, {MDB_PAGE_NOTFOUND, StatusCode::Corrupt},
      {EACCES, StatusCode::ReadOnly},       {EROFS, StatusCode::ReadOnly},
      {ENOENT, StatusCode::CantOpen},       {EIO, StatusCode::IoError},
      {MDB_READERS_FULL, StatusCode::Busy}, {EBUSY, StatusCode::Busy},
  };
  for (const auto& c : cases) {
    const Status st = status_from_mdb(c.rc, "write eavt");
    INFO(describe(st));
    CHECK(st.code() == c.code);
    // Damage LMDB reports itself is named as damage, like a caught fault (page_fault_guard.h).
    const bool damage = c.rc == MDB_CORRUPTED || c.rc == MDB_PAGE_NOTFOUND;
    CHECK(st.message().rfind(damage ? "the index is damaged (write eavt: " : "write eavt: ", 0) == 0);
    CHECK(st.message().find(mdb_strerror(c.rc)) != std::string::npos);
  }
  CHECK(status_from_mdb(MDB_SUCCESS, "anything").ok());
}

}  // namespace
}  // namespace datalog::store::testing
