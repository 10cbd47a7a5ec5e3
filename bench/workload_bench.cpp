// bench/workload_bench.cpp: Minigraf's benchmark groups (WORKLOADS.md) on sqlite-datalog through
// SQL, against the same data and questions on plain SQLite, in one run; writes one JSON file.
//
//   build/bench/workload_bench [--quick] [--out FILE] [--dir DIR] [--only TEXT] [--size N]
//
//   --quick  small sizes and few repetitions (CI smoke run, under a minute)
//   --out    the JSON file (default: stdout)
//   --dir    scratch folder for the stores (default: ./bench-scratch); it should be on the disk
//            whose fsync you want to measure, not a tmpfs
//   --concurrency-seconds S   how long each reader/writer configuration runs (default 2, quick 0.2)
//   --only   run only the parts whose "group/workload" contains TEXT (writes, open, concurrent,
//            bulk_load, memory and fsync are parts too)
//   --size   run the selected query workloads at N facts only, for sizes the report leaves out:
//            `--only query/ --size 10000000` (the report is rendered from runs without it)
//
// What it measures, and how the baseline is built: bench/README.md and docs/BENCHMARKS.md.
// bench/run.sh builds it, runs it and renders the report and the plots.
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <algorithm>
#include <tuple>
#include <thread>

#include <fmt/format.h>

#include "concurrency.h"
#include "heap_counter.h"
#include "memory_profile.h"
#include "query_runner.h"
#include "rdf_import.h"
#include "query_workloads.h"
#include "run_context.h"
#include "storage_measures.h"
#include "stores.h"
#include "write_runner.h"

namespace bench {
namespace {

constexpr long long kSetupFactsPerTransaction = 10'000;

struct Options {
  bool quick = false;
  std::string out;
  std::string dir = "bench-scratch";
  std::string only;
  double concurrency_seconds = 0;  // 0: the mode's default
  long long size = 0;  // > 0: the query workloads at this size only (10M is beyond the report's)
};

bool selected(const Options& o, const std::string& what) {
  return o.only.empty() || what.find(o.only) != std::string::npos;
}

std::string read_first_line_with(const char* path, const char* prefix) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) {
      const std::size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "";
}

std::string filesystem_of(const std::string& dir) {
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0) return "unknown";
  static const std::map<unsigned long, const char*> names = {
      {0xEF53, "ext4"},       {0x58465342, "xfs"},   {0x9123683E, "btrfs"},
      {0x01021994, "tmpfs"},  {0x794C7630, "overlayfs"}, {0x65735546, "fuse"}};
  const auto it = names.find(static_cast<unsigned long>(fs.f_type));
  return it != names.end() ? it->second : fmt::format("0x{:x}", static_cast<unsigned long>(fs.f_type));
}

JsonObject machine_description(const Options& o) {
  JsonObject m;
  struct utsname u {};
  ::uname(&u);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.add("date", std::string(date));
  m.add("cpu", read_first_line_with("/proc/cpuinfo", "model name"));
  m.add("cpus", static_cast<long long>(std::thread::hardware_concurrency()));
  m.add("memory", read_first_line_with("/proc/meminfo", "MemTotal"));
  m.add("kernel", std::string(u.sysname) + " " + u.release);
  m.add("filesystem", filesystem_of(o.dir));
  m.add("sqlite_version", std::string(sqlite3_libversion()));
  m.add("extension", datalog_extension_path());
  m.add("quick", o.quick);
  m.add("heap_counter", heap_counter_available());
  return m;
}

void configure(RunContext& ctx, const Options& o) {
  ctx.quick = o.quick;
  ctx.dir = o.dir;
  if (o.quick) {
    ctx.reads = {0.002, 0.01, 3, 20};
    ctx.writes = {0.0, 0.02, 3, 10};
    ctx.concurrency_seconds = 0.2;
  } else {
    ctx.reads = {0.05, 0.3, 5, 200};
    ctx.writes = {0.02, 0.5, 5, 300};
    ctx.concurrency_seconds = 2.0;
  }
  if (o.concurrency_seconds > 0) ctx.concurrency_seconds = o.concurrency_seconds;
}

// One loaded data set and the workloads that read it.
struct Stage {
  FixtureSpec fixture;
  long long n;
  std::vector<const QueryWorkload*> workloads;
};

long long concurrency_size(const Options& o) { return o.quick ? 10'000 : 100'000; }

// Whether the `populate` data of size n is needed for the parts that are not query workloads.
bool populate_needed(const Options& o, long long n) {
  return selected(o, "writes") || selected(o, "open") ||
         (selected(o, "concurrent") && n == concurrency_size(o));
}

std::vector<Stage> plan_stages(const Options& o) {
  std::vector<Stage> stages;
  for (const QueryWorkload& w : query_workloads()) {
    const bool wanted = selected(o, w.group + "/" + w.name);
    const std::vector<long long> sizes = o.size > 0 ? std::vector<long long>{o.size}
                                         : o.quick ? w.quick_sizes : w.sizes;
    for (const long long n : sizes) {
      if (!wanted && !(w.fixture.id == "populate" && populate_needed(o, n))) continue;
      auto it = std::find_if(stages.begin(), stages.end(), [&](const Stage& s) {
        return s.fixture.id == w.fixture.id && s.n == n;
      });
      if (it == stages.end()) {
        stages.push_back({w.fixture, n, {}});
        it = stages.end() - 1;
      }
      if (wanted) it->workloads.push_back(&w);
    }
  }
  std::stable_sort(stages.begin(), stages.end(),
                   [](const Stage& a, const Stage& b) { return a.n < b.n; });
  return stages;
}

void run_stage(const Stage& stage, const Options& o, RunContext& ctx, int& table_number) {
  const std::string base = ctx.dir + fmt::format("/{}-{}", stage.fixture.id, stage.n);
  remove_stores(base);
  const Fixture f = stage.fixture.build(stage.n);
  const long long facts = static_cast<long long>(f.facts.size());
  std::optional<Connection> ours(open_ours(base));
  std::optional<Connection> plain(open_plain(base));
  const double ours_load = load_ours(*ours, f, kSetupFactsPerTransaction);
  const double plain_load = load_plain(*plain, f, kSetupFactsPerTransaction);
  // A competent user gathers statistics after a load; without them SQLite's planner picks poor
  // join orders (sqlite-datalog keeps its own statistics as it writes).
  plain->exec("ANALYZE");
  const long long ours_size = ours_bytes(*ours, base);
  const long long plain_size = plain_bytes(*plain, base);
  for (const auto& [impl, seconds, bytes] :
       {std::tuple<std::string, double, long long>{"exec", ours_load, ours_size},
        {"sqlite", plain_load, plain_size}}) {
    JsonObject r;
    r.add("group", "setup").add("workload", stage.fixture.id).add("size", stage.n).add("impl", impl);
    r.add("facts", facts).add("seconds", seconds).add("bytes", bytes);
    r.add("bytes_per_fact", static_cast<double>(bytes) / static_cast<double>(std::max(facts, 1LL)));
    ctx.results.push_back(r);
  }
  progress(ctx, fmt::format("setup {} n={} ({} facts): load ours {:.2f}s sqlite {:.2f}s; "
                            "{:.1f} vs {:.1f} B/fact",
                            stage.fixture.id, stage.n, facts, ours_load, plain_load,
                            static_cast<double>(ours_size) / static_cast<double>(std::max(facts, 1LL)),
                            static_cast<double>(plain_size) / static_cast<double>(std::max(facts, 1LL))));

  for (const QueryWorkload* w : stage.workloads) {
    run_query_workload(*w, stage.n, *ours, *plain, ++table_number, ctx);
  }

  if (stage.fixture.id == "populate") {
    ours.reset();
    plain.reset();
    if (selected(o, "open")) measure_open(base, stage.n, ctx);
    if (stage.n == concurrency_size(o) && selected(o, "concurrent")) measure_concurrency(base, stage.n, ctx);
    if (selected(o, "writes")) {
      ours.emplace(open_ours(base));
      plain.emplace(open_plain(base));
      run_write_workloads(stage.n, *ours, *plain, ctx);
    }
  }
  ours.reset();
  plain.reset();
  remove_stores(base);
}

int run(const Options& o) {
  ::mkdir(o.dir.c_str(), 0755);
  RunContext ctx;
  configure(ctx, o);
  const JsonObject machine = machine_description(o);
  if (selected(o, "fsync")) measure_fsync_floor(ctx);
  int table_number = 0;
  for (const Stage& stage : plan_stages(o)) run_stage(stage, o, ctx, table_number);
  const std::vector<long long> load_sizes =
      o.quick ? std::vector<long long>{10'000} : std::vector<long long>{10'000, 100'000, 1'000'000};
  if (selected(o, "bulk_load")) {
    for (const long long n : load_sizes) {
      measure_bulk_load(n, ctx);
      measure_ntriples_import(n, ctx);
    }
  }
  if (selected(o, "memory")) {
    for (const long long n : load_sizes) measure_memory(n, ctx);
  }
  ::rmdir(o.dir.c_str());

  JsonObject meta = machine;
  meta.add("total_seconds", seconds_since(ctx.started));
  meta.add("mismatch_count", static_cast<long long>(ctx.mismatches.size()));
  JsonObject doc;
  doc.add("format", "sqlite-datalog-bench/1").add("meta", meta);
  doc.add("results", ctx.results).add("mismatches", ctx.mismatches);
  const std::string text = doc.text() + "\n";
  if (o.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream out(o.out);
    out << text;
    if (!out) die("cannot write " + o.out);
  }
  progress(ctx, fmt::format("done: {} results, {} row-count mismatches", ctx.results.size(),
                            ctx.mismatches.size()));
  return 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  // As a multi-threaded SQLite application would: without memory statistics, every allocation of
  // every connection (ours and the baseline's) takes a process-wide mutex.
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 4 && args[0] == "--memory-child") {
    return bench::memory_child_main(args[1], std::stoll(args[2]), args[3]);
  }
  bench::Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) bench::die(args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--quick") {
      o.quick = true;
    } else if (args[i] == "--out") {
      o.out = value();
    } else if (args[i] == "--dir") {
      o.dir = value();
    } else if (args[i] == "--concurrency-seconds") {
      o.concurrency_seconds = std::stod(value());
    } else if (args[i] == "--only") {
      o.only = value();
    } else if (args[i] == "--size") {
      o.size = std::stoll(value());
    } else {
      bench::die("unknown argument " + args[i] +
                 " (usage: workload_bench [--quick] [--out FILE] [--dir DIR] [--only TEXT] "
                 "[--size N] [--concurrency-seconds S])");
    }
  }
  return bench::run(o);
}
