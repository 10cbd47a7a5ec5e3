#include "memory_profile.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "heap_counter.h"
#include "rdf_import.h"
#include "stores.h"

namespace bench {
namespace {

constexpr long long kFactsPerTransaction = 1000;

std::string self_executable() {
  char path[4096];
  const ssize_t len = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (len <= 0) die("cannot read /proc/self/exe");
  return std::string(path, static_cast<std::size_t>(len));
}

// Generates the facts of one transaction on the fly: the child must not hold the whole data
// set in memory, or the peak would measure the generator.
std::string transact_text(long long begin, long long end) {
  std::string text = "(transact [";
  for (long long i = begin; i < end; ++i) text += fmt::format("[:e{} :val {}]", i, i);
  return text + "])";
}

}  // namespace

int memory_child_main(const std::string& kind, long long n, const std::string& dir) {
  const std::string base = dir + fmt::format("/memory-{}-{}", kind, n);
  remove_stores(base);
  const std::string triples_file = base + ".nt";
  // The file is written before counting starts: the peak measures the import, not the generator.
  if (kind == "import") write_people_ntriples(triples_file, n);
  heap_counting_start();
  const auto start = Clock::now();
  long long rows = 0;
  if (kind == "import") {
    Connection db = open_ours(base);
    Statement import = db.prepare("SELECT datalog_import('g', ?1)");
    import.bind(1, triples_file.substr(triples_file.rfind('/') + 1));  // by name, in the database's folder
    import.run();
    Statement query = db.prepare(
        "SELECT v FROM g WHERE e = ':http://example.org/person/0' AND a = ':foaf/name'");
    rows = query.run();
  } else if (kind == "exec") {
    Connection db = open_ours(base);
    Statement exec = db.prepare("SELECT datalog_exec('g', ?1)");
    for (long long i = 0; i < n; i += kFactsPerTransaction) {
      exec.bind(1, transact_text(i, std::min(n, i + kFactsPerTransaction)));
      exec.run();
    }
    Statement query = db.prepare("SELECT * FROM datalog_q('g', '(query [:find ?v :where [:e0 :val ?v]])')");
    rows = query.run();
  } else {
    Connection db = open_plain(base);
    Statement insert = db.prepare(
        "INSERT INTO facts(e, a, v, tx, valid_from) VALUES (?1, 1, ?1, ?2, ?3)");
    const long long valid_from = now_ms();
    for (long long i = 0; i < n; i += kFactsPerTransaction) {
      db.exec("BEGIN");
      for (long long j = i; j < std::min(n, i + kFactsPerTransaction); ++j) {
        insert.bind(1, j);
        insert.bind(2, i / kFactsPerTransaction + 1);
        insert.bind(3, valid_from);
        insert.run();
      }
      db.exec("COMMIT");
    }
    Statement query = db.prepare("SELECT v FROM facts WHERE e = 0 AND a = 1");
    rows = query.run();
  }
  const double seconds = seconds_since(start);
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  std::printf("%lld %ld %.6f %lld\n", heap_peak_bytes(), usage.ru_maxrss, seconds, rows);
  remove_stores(base);
  std::remove(triples_file.c_str());
  return rows == 1 ? 0 : 2;
}

void measure_memory(long long n, RunContext& ctx) {
  const std::string exe = self_executable();
  // import: the same facts' count read from an N-Triples file by datalog_import (rdf_import.h).
  for (const std::string kind : {"exec", "sqlite", "import"}) {
    const std::string command =
        fmt::format("'{}' --memory-child {} {} '{}'", exe, kind, n, ctx.dir);
    FILE* child = ::popen(command.c_str(), "r");
    if (child == nullptr) die("cannot run " + command);
    long long heap = 0;
    long rss_kb = 0;
    double seconds = 0;
    long long rows = 0;
    const int fields = std::fscanf(child, "%lld %ld %lf %lld", &heap, &rss_kb, &seconds, &rows);
    const int status = ::pclose(child);
    JsonObject r;
    const bool import = kind == "import";
    r.add("group", "memory").add("workload", import ? "ntriples_import" : "load_plus_query").add("size", n);
    r.add("impl", import ? "exec" : kind);
    if (fields != 4 || status != 0) {
      r.add("error", fmt::format("memory child failed (status {})", status));
      std::fprintf(stderr, "!!! ERROR memory child %s n=%lld failed\n", kind.c_str(), n);
    } else {
      if (heap >= 0) r.add("peak_heap_bytes", heap);
      r.add("peak_rss_bytes", static_cast<long long>(rss_kb) * 1024).add("seconds", seconds);
      progress(ctx, fmt::format("memory n={} {}: peak heap {:.1f} MB, peak RSS {:.1f} MB, {:.2f}s",
                                n, kind, static_cast<double>(heap) / 1e6,
                                static_cast<double>(rss_kb) / 1e3, seconds));
    }
    ctx.results.push_back(r);
  }
}

}  // namespace bench
