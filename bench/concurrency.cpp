#include "concurrency.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include <fmt/format.h>

#include "stores.h"

namespace bench {
namespace {

enum class Shape { threads, processes };

constexpr const char* kPointQuery = "(query [:find ?v :where [:e0 :val ?v]])";

// A reader's connection and its prepared point query.
struct Reader {
  Connection db;
  Statement read;
};

// Who reads. "named" (ours) reads the named query table qpoint of the host database's main
// schema; "temp" (ours) the same query as a named query table of the connection's temp schema,
// which spares each statement SQLite's read lock on the host database file (the graph's reads
// never needed it); "sqlite" reads the baseline's table. "memory" is the machine's reference:
// the baseline's table and query in a private in-memory database per reader, so its readers share
// no file, lock or cache with anything; with a writer, it is sqlite-datalog's writer that runs.
// What it loses to a second reader or to the writer is what the machine itself takes.
struct Store {
  std::string impl;
  std::string base;
  long long n;

  bool writes_ours() const { return impl != "sqlite"; }

  Reader open_reader() const {
    const bool plain = impl == "sqlite" || impl == "memory";
    Connection db = impl == "memory" ? Connection(":memory:", false)
                    : plain          ? Connection(plain_db_path(base), false)
                                     : Connection(ours_db_path(base), true);
    std::string query = "SELECT * FROM qpoint";
    if (plain) query = "SELECT v FROM facts WHERE e = 0 AND a = 1";
    if (impl == "memory") {
      create_plain_schema(db);
      db.exec(fmt::format(
          "WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x + 1 < {})"
          " INSERT INTO facts(e, a, v, tx, valid_from) SELECT x, 1, x, 1, 0 FROM i;",
          n));
    } else if (impl == "temp") {
      db.exec(fmt::format("CREATE VIRTUAL TABLE temp.qpoint_temp USING datalog_query(g, '{}')", kPointQuery));
      query = "SELECT * FROM qpoint_temp";
    }
    Statement read = db.prepare(query);
    return Reader{std::move(db), std::move(read)};
  }
};

long long read_until(Statement& read, Clock::time_point deadline) {
  long long count = 0;
  while (Clock::now() < deadline) {
    read.run();
    ++count;
  }
  return count;
}

void write_until(const Store& store, const std::atomic<bool>& stop, std::atomic<long long>& writes) {
  if (!store.writes_ours()) {
    Connection db(plain_db_path(store.base), false);
    Statement upsert = db.prepare(
        "INSERT OR REPLACE INTO facts(e, a, v, tx, valid_from) VALUES (3000000000, 1, 0, ?1, ?2)");
    for (long long tx = 2'000'000; !stop.load(); ++tx) {
      upsert.bind(1, tx);
      upsert.bind(2, now_ms());
      upsert.run();
      ++writes;
    }
  } else {
    Connection db(ours_db_path(store.base), true);
    Statement exec = db.prepare("SELECT datalog_exec('g', '(transact [[:ebench :val 0]])')");
    while (!stop.load()) {
      exec.run();
      ++writes;
    }
  }
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Returns total reads; `writes` gets the writer's commits.
long long run_readers(const Store& store, Shape shape, int readers, bool writer, double seconds,
                      long long& writes) {
  std::atomic<bool> stop{false};
  std::atomic<long long> write_count{0};
  long long total = 0;
  std::thread writer_thread;

  if (shape == Shape::threads) {
    // Readers connect and run the query once before the window opens, as the processes do.
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    Clock::time_point deadline{};
    std::vector<std::thread> threads;
    std::vector<long long> counts(static_cast<std::size_t>(readers), 0);
    for (int i = 0; i < readers; ++i) {
      threads.emplace_back([&, i] {
        Reader reader = store.open_reader();
        reader.read.run();
        ++ready;
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        counts[static_cast<std::size_t>(i)] = read_until(reader.read, deadline);
      });
    }
    while (ready.load() < readers) std::this_thread::yield();
    if (writer) writer_thread = std::thread([&] { write_until(store, stop, write_count); });
    deadline = deadline_after(seconds);
    go.store(true, std::memory_order_release);
    for (std::thread& t : threads) t.join();
    for (const long long c : counts) total += c;
  } else {
    // Children signal readiness on `ready`, wait for the go byte on `go`, report on `report`.
    int ready[2], go[2], report[2];
    if (::pipe(ready) != 0 || ::pipe(go) != 0 || ::pipe(report) != 0) die("pipe failed");
    std::vector<pid_t> children;
    for (int i = 0; i < readers; ++i) {
      const pid_t pid = ::fork();
      if (pid < 0) die("fork failed");
      if (pid == 0) {
        Reader reader = store.open_reader();
        reader.read.run();
        char byte = 'r';
        if (::write(ready[1], &byte, 1) != 1 || ::read(go[0], &byte, 1) != 1) ::_exit(3);
        const long long count = read_until(reader.read, deadline_after(seconds));
        const bool sent = ::write(report[1], &count, sizeof count) == sizeof count;
        ::_exit(sent ? 0 : 4);
      }
      children.push_back(pid);
    }
    for (int i = 0; i < readers; ++i) {
      char byte = 0;
      if (::read(ready[0], &byte, 1) != 1) die("reader process did not start");
    }
    if (writer) writer_thread = std::thread([&] { write_until(store, stop, write_count); });
    const std::string go_bytes(static_cast<std::size_t>(readers), 'g');
    if (::write(go[1], go_bytes.data(), go_bytes.size()) != static_cast<ssize_t>(go_bytes.size())) {
      die("cannot start reader processes");
    }
    for (int i = 0; i < readers; ++i) {
      long long count = 0;
      if (::read(report[0], &count, sizeof count) != sizeof count) die("reader process failed");
      total += count;
    }
    for (const pid_t pid : children) ::waitpid(pid, nullptr, 0);
    for (const int fd : {ready[0], ready[1], go[0], go[1], report[0], report[1]}) ::close(fd);
  }
  stop.store(true);
  if (writer_thread.joinable()) writer_thread.join();
  writes = write_count.load();
  return total;
}

}  // namespace

void measure_concurrency(const std::string& base, long long n, RunContext& ctx) {
  {
    Connection db = open_ours(base);
    db.exec(fmt::format("CREATE VIRTUAL TABLE IF NOT EXISTS qpoint USING datalog_query(g, '{}')",
                        kPointQuery));
  }
  struct Config {
    const char* name;
    Shape shape;
    int readers;
  };
  const Config configs[] = {{"1_thread", Shape::threads, 1},
                            {"2_threads", Shape::threads, 2},
                            {"2_processes", Shape::processes, 2}};
  // Each shape is measured alone and with the writer in turn, in kRounds short windows whose
  // medians are reported: the machine's speed drifts over seconds (a shared VM), and one long
  // window per case let that drift decide the ratios between them.
  constexpr int kRounds = 5;
  const double window = ctx.concurrency_seconds / kRounds;
  for (const Store& store : {Store{"named", base, n}, Store{"temp", base, n}, Store{"sqlite", base, n},
                             Store{"memory", base, n}}) {
    for (const Config& c : configs) {
      std::vector<double> reads_per_s[2], writes_per_s[2];
      for (int round = 0; round < kRounds; ++round) {
        for (const bool writer : {false, true}) {
          long long writes = 0;
          const long long reads = run_readers(store, c.shape, c.readers, writer, window, writes);
          reads_per_s[writer].push_back(static_cast<double>(reads) / window);
          writes_per_s[writer].push_back(static_cast<double>(writes) / window);
        }
      }
      for (const bool writer : {false, true}) {
        const double qps = median_of(reads_per_s[writer]);
        const double wps = median_of(writes_per_s[writer]);
        JsonObject r;
        r.add("group", "concurrent").add("workload", std::string(c.name) + (writer ? "+writer" : ""));
        r.add("size", n).add("impl", store.impl).add("readers", c.readers);
        r.add("shape", c.shape == Shape::threads ? "threads" : "processes").add("writer", writer);
        r.add("seconds", ctx.concurrency_seconds).add("rounds", kRounds);
        r.add("reads_per_s", qps).add("writes_per_s", wps);
        ctx.results.push_back(r);
        progress(ctx, fmt::format("concurrent n={} {} {}{}: {:.0f} reads/s, {:.0f} writes/s (medians of {})",
                                  n, store.impl, c.name, writer ? "+writer" : "", qps, wps, kRounds));
      }
    }
  }
}

}  // namespace bench
