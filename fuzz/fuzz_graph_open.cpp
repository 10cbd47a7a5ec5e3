// A graph index file from someone else: the input is written as an index file, opened the way a
// table opens an existing index, and read through every path a query or a check takes (the four
// datom indexes with long values and transaction times, idents, rules, statistics, and the
// comparison datalog_check makes). Errors are fine, and so is a fault that the page-fault guard
// turns into a damaged index; a signal that reaches libFuzzer, a leak or undefined behaviour
// outside LMDB is not.
//
// Seeds (fuzz/corpus/graph_open/, named .mdb since .graph files are not versioned): a real
// index of format 4 (people.mdb), one of format 5 (people-format5.mdb, whose ident names are
// keyed by length first), one of format 6 (people-format6.mdb, whose records end with a check
// byte: mutations of it reach past the check only where they leave it intact), one of format 7
// (people-format7.mdb, the same graph and 40 more names: ident records shared by ten names and by
// 16 ids, read by the walks of ident_name_groups.h and ident_id_blocks.h), two copies of the
// first with one leaf page that sends LMDB into an endless loop (caught by the stuck-call
// watchdog and by the key-order checks; a regression shows as a libFuzzer timeout), and one whose
// table record names a meta page as its root.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/datom_scan.h"
#include "lmdb_store/graph_env.h"
#include "lmdb_store/ident_id_blocks.h"
#include "lmdb_store/index_check.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/stuck_call_watchdog.h"
#include "lmdb_store/table_cursor.h"

namespace {

using namespace datalog;
using namespace datalog::store;

const std::string& index_path() {
  static const std::string path = [] {
    // In memory where there is /dev/shm: closing an index syncs it, which a disk makes slow.
    char in_memory[] = "/dev/shm/datalog-fuzz-open-XXXXXX";
    char on_disk[] = "/tmp/datalog-fuzz-open-XXXXXX";
    char* folder = ::mkdtemp(in_memory);
    if (!folder) folder = ::mkdtemp(on_disk);
    if (!folder) ::abort();
    return std::string(folder) + "/g.graph";
  }();
  return path;
}

bool write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  ::unlink(path.c_str());
  ::unlink((path + "-lock").c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return done == size;
}

// Every visible record of one index, in any valid time: decodes keys, tx times, long values.
void scan_index(const GraphEnv& env, MDB_txn* txn, IndexId index) {
  TimeView everything;
  everything.any_valid_time = true;
  DatomScan scan;
  if (!scan.start(env, txn, index, "", "", everything, DatomScan::ReadAhead::Snapshot).ok()) return;
  while (!scan.at_end() && !env.damaged()) {
    if (!scan.next().ok()) return;
  }
}

// Each ident's name, found from its id and back: every slot of every block of ident_ids.
void read_idents(const GraphEnv& env, MDB_txn* txn) {
  TableCursor ids;
  if (!ids.open(txn, env.tables().ident_ids, "ident_ids").ok()) return;
  for (Status s = ids.step(MDB_FIRST); s.ok() && !ids.at_end() && !env.damaged(); s = ids.step(MDB_NEXT)) {
    EntityId block = 0;
    if (!read_ordered_int_key(ids.key(), &block)) continue;
    for (std::uint32_t slot = 0; slot < kIdsPerBlock && !env.damaged(); ++slot) {
      const auto id = static_cast<EntityId>(static_cast<std::uint64_t>(block) << kIdBlockBits | slot);
      std::optional<Value> name;
      if (!ident_name(txn, env.tables(), id, &name).ok() || !name) continue;
      std::optional<EntityId> back;
      (void)lookup_ident(txn, env.tables(), *name, &back);
    }
  }
}

void read_everything(const GraphEnv& env, MDB_txn* txn) {
  for (IndexId index : {IndexId::Eavt, IndexId::Aevt, IndexId::Avet, IndexId::Vaet}) {
    if (env.damaged()) return;
    scan_index(env, txn, index);
  }
  if (!env.damaged()) read_idents(env, txn);
  std::vector<StoredRule> rules;
  if (!env.damaged()) (void)read_rules(txn, env.tables(), &rules);
  GraphStats stats;
  if (!env.damaged()) (void)read_graph_stats(txn, env.tables(), &stats);
  // datalog_check's walk: every table record by record, each datom decoded.
  IndexCheck check;
  if (!env.damaged()) (void)compare_indexes(env, txn, env, txn, &check);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The watchdog that stops LMDB calls stuck on a damaged page runs for the whole process, as
  // in a host whose graphs stay open, rather than starting and stopping with each input.
  static StuckCallWatch watch;
  const std::string& path = index_path();
  if (!write_file(path, data, size)) return 0;
  OpenOptions options;
  options.create = false;  // as a table connecting to an index it did not make
  std::shared_ptr<GraphEnv> env;
  if (!GraphEnv::open(path, options, &env).ok()) return 0;
  MDB_txn* txn = nullptr;
  if (env->begin_read(&txn).ok()) {
    read_everything(*env, txn);
    env->end_read(txn);
  }
  return 0;
}
