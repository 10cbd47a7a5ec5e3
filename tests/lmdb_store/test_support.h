// tests/store/test_support.h: what every store test needs: a private temp directory, an open
// graph, read snapshots, scans collected into vectors, datoms as comparable text, and pipes
// and forked children for the multi-process tests.
//
// Helpers that can fail use Catch2's REQUIRE, so call them from a test's own thread only, and
// never from a forked child (a child reports over a pipe and leaves with _exit; see
// run_in_child).
#pragma once

#include <lmdb.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/datom_layout.h"
#include "lmdb_store/graph_env.h"
#include "lmdb_store/mdb_status.h"
#include "lmdb_store/visibility.h"
#include "lmdb_store/write_txn.h"

namespace datalog::store::testing {

// A fresh directory made with mkdtemp under $TMPDIR (or /tmp), removed with its contents when
// the object goes. Declare it before any GraphEnv that lives in it, so the graph closes first.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

// Opens (creating) the graph at path; the test fails when that does not succeed.
std::shared_ptr<GraphEnv> open_graph(const std::string& path, const OpenOptions& options = {});

// "code: message" for failure output.
std::string describe(const Status& status);
// REQUIREs st to be OK, showing the status when it is not.
void require_ok(const Status& st);
std::string_view code_name(StatusCode code);

// A read-only snapshot (GraphEnv::begin_read), ended when the object goes.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(GraphEnv& env);
  ~ReadSnapshot();
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;
  MDB_txn* txn() const { return txn_; }

 private:
  GraphEnv& env_;
  MDB_txn* txn_ = nullptr;
};

// Time views used throughout: everything ever recorded, and everything as of one transaction.
TimeView any_time(std::uint64_t as_of = UINT64_MAX);
TimeView valid_at(std::int64_t instant, std::uint64_t as_of = UINT64_MAX);

// Every visible datom of [start, end) of index in view (end empty: to the end of the index).
// Fails the test if the scan errs or yields more than a million datoms (a scan that never ends).
std::vector<Datom> scan(const GraphEnv& env, MDB_txn* txn, IndexId index, std::string start,
                        std::string end, const TimeView& view);
std::vector<Datom> scan_all(const GraphEnv& env, MDB_txn* txn, IndexId index, const TimeView& view);
// The keys of index starting with prefix: [prefix, prefix_successor(prefix)).
std::vector<Datom> scan_prefix(const GraphEnv& env, MDB_txn* txn, IndexId index,
                               const std::string& prefix, const TimeView& view);

// Calls each(key) for every key of a raw LMDB table, in order; fails the test on an LMDB error.
void for_each_key(MDB_txn* txn, MDB_dbi dbi, const std::function<void(std::string_view)>& each);

// A datom as one line of text, exact enough to compare: giants print as their length, prefix
// and hash. Sorting the lines gives a canonical form of a multiset of datoms.
std::string datom_text(const Datom& d);
std::vector<std::string> as_sorted_text(const std::vector<Datom>& datoms);
std::vector<std::string> as_text(const std::vector<Datom>& datoms);  // keeps the order

// What a new read snapshot of env shows: every datom ever recorded (as sorted text), and the
// log header of transaction tx (nullopt when tx was never committed).
std::vector<std::string> committed_datoms(GraphEnv& env);
std::optional<TxInfo> committed_tx_info(GraphEnv& env, std::uint64_t tx);

// Begins a write transaction on env (REQUIREs that it began).
std::unique_ptr<WriteTxn> begin_write(const std::shared_ptr<GraphEnv>& env);

// Asserts every datom in txn and commits; returns the transaction counter used.
std::uint64_t commit_facts(const std::shared_ptr<GraphEnv>& env, const std::vector<Datom>& facts);

// A pipe between a parent and a forked child, one line-oriented message at a time.
class Pipe {
 public:
  Pipe();
  ~Pipe();
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  void close_read();
  void close_write();
  bool send(std::string_view line);      // appends '\n'; false when the reader has gone
  std::optional<std::string> receive();  // one line without '\n'; nullopt at end of file
  std::string receive_all();             // everything up to end of file

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
  std::string buffer_;
};

// Forks; the child runs body and leaves with _exit(body's return value) — also when body
// throws (exit 101) — and is killed by SIGALRM after timeout_seconds. Returns the child's pid.
// The child must not use Catch2 macros.
pid_t fork_child(const std::function<int()>& body, unsigned timeout_seconds = 60);
// Waits for pid; returns the raw wait status.
int wait_child(pid_t pid);

// Runs body in a forked child and returns the text it returned (for "open the file in a fresh
// process" checks). Fails the test if the child does not exit with 0.
std::string run_in_child(const std::function<std::string()>& body);

}  // namespace datalog::store::testing
