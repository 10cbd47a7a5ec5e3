#include "query_runner.h"

#include <cstdio>
#include <optional>
#include <random>

#include <fmt/format.h>

namespace bench {
namespace {

struct PathResult {
  std::string impl;
  std::optional<Timing> timing;
  std::string error;
};

// The baseline's EXPLAIN QUERY PLAN on one line, so a reader can judge the SQL's plan.
std::string plan_of(Connection& db, const std::string& sql) {
  Statement explain = db.prepare("EXPLAIN QUERY PLAN " + sql);
  return explain.column_text_rows(3, "; ");
}

std::string placeholders(std::size_t count, int first) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += fmt::format(", ?{}", first + static_cast<int>(i));
  return out;
}

// The keys a keyed workload looks up, one per call, cycled: drawn once so that drawing and
// formatting them is not timed, and the same for every path.
struct KeySequence {
  std::vector<long long> numbers;
  std::vector<std::string> idents;  // ':e{k}', for an entity key on our paths

  KeySequence(const QueryWorkload& w, long long n) {
    if (w.key == KeyKind::none) return;
    std::mt19937_64 random(19);  // fixed: every run and every path sees the same keys
    std::uniform_int_distribution<long long> draw(0, std::max(1LL, w.key_range(n)) - 1);
    for (int i = 0; i < 4096; ++i) {
      numbers.push_back(draw(random));
      if (w.key == KeyKind::entity) idents.push_back(":e" + std::to_string(numbers.back()));
    }
  }
};

}  // namespace

void run_query_workload(const QueryWorkload& w, long long n, Connection& ours, Connection& plain,
                        int table_number, RunContext& ctx) {
  const std::string datalog = with_size(w.datalog, n);
  const std::vector<long long> args = w.args ? w.args(n) : std::vector<long long>{};
  const KeySequence keys(w, n);
  const std::size_t parameters = w.key == KeyKind::none ? args.size() : 1;
  // The paths timed side by side. A path whose table cannot be made, or whose first call fails,
  // is reported with its error and left out of the timing.
  struct Candidate {
    std::string impl;
    Statement stmt;
    bool binds_query = false;  // ad hoc: the query text is bound on every call, as users do
    int key_parameter = 1;     // where a keyed workload's key goes
    bool ours = true;          // binds an entity key as its ident, not its baseline integer
    std::size_t calls = 0;

    // Binds what this call takes: the query text (ad hoc), the next key (keyed workloads).
    void bind_call(const std::string& datalog, const KeySequence& keys) {
      if (binds_query) stmt.bind(1, datalog);
      if (keys.numbers.empty()) return;
      const std::size_t k = calls++ % keys.numbers.size();
      if (ours && !keys.idents.empty()) stmt.bind(key_parameter, keys.idents[k]);
      else stmt.bind(key_parameter, keys.numbers[k]);
    }
  };
  std::vector<Candidate> candidates;
  std::vector<PathResult> failed;

  // The named query table twice: in the host database's main schema, where each statement takes
  // SQLite's read lock on the host file, and in the temp schema, where none does.
  for (const auto& [impl, schema] : {std::pair<std::string, std::string>{"named", "main"}, {"temp", "temp"}}) {
    const std::string table = fmt::format("{}.q{}", schema, table_number);
    const std::string create_error = ours.try_exec(fmt::format(
        "CREATE VIRTUAL TABLE {} USING datalog_query(g, {})", table, sql_quote(datalog)));
    if (!create_error.empty()) {
      failed.push_back({impl, std::nullopt, create_error});
      continue;
    }
    std::string select = "SELECT * FROM " + table;
    if (parameters > 0) select += "(" + placeholders(parameters, 1).substr(2) + ")";
    Statement named = ours.prepare(select);
    for (std::size_t i = 0; i < args.size(); ++i) named.bind(static_cast<int>(i) + 1, args[i]);
    candidates.push_back({impl, std::move(named)});
  }

  Statement adhoc = ours.prepare("SELECT * FROM datalog_q('g', ?1" +
                                 placeholders(parameters, 2) + ")");
  for (std::size_t i = 0; i < args.size(); ++i) adhoc.bind(static_cast<int>(i) + 2, args[i]);
  candidates.push_back({"adhoc", std::move(adhoc), true, 2});

  Statement baseline = plain.prepare(with_size(w.sql, n));
  for (std::size_t i = 0; i < args.size(); ++i) baseline.bind(static_cast<int>(i) + 1, args[i]);
  candidates.push_back({"sqlite", std::move(baseline), false, 1, false});

  std::vector<std::function<long long()>> calls;
  std::vector<std::string> timed;
  for (Candidate& c : candidates) {
    try {
      c.bind_call(datalog, keys);
      c.stmt.run_or_throw();
    } catch (const StepError& e) {
      failed.push_back({c.impl, std::nullopt, e.what()});
      continue;
    }
    calls.push_back([&c, &datalog, &keys] {  // candidates no longer grows: &c stays valid
      c.bind_call(datalog, keys);
      return c.stmt.run_or_throw();
    });
    timed.push_back(c.impl);
  }
  std::vector<PathResult> paths = std::move(failed);
  const std::vector<Timing> timings = measure_interleaved(calls, ctx.reads);
  for (std::size_t i = 0; i < timed.size(); ++i) paths.push_back({timed[i], timings[i], ""});
  if (w.key != KeyKind::none && !timed.empty() && timed.back() == "sqlite") {
    // The baseline once more, alone, while a second connection holds a read transaction on its
    // database: SQLite shares WAL read locks among a process's connections, so each statement
    // then skips the two fcntl() calls and the fstat() of its own read lock. The difference from
    // "sqlite" is what that lock costs per statement (our paths take the same lock on the host
    // database); an application that keeps a read transaction open elsewhere gets this figure.
    Connection holder(sqlite3_db_filename(plain.raw(), "main"), false);
    holder.exec("BEGIN; SELECT count(*) FROM attribute;");
    paths.push_back({"sqlite_lock_held", measure(calls.back(), ctx.reads), ""});
    holder.exec("COMMIT");
  }

  std::string line = fmt::format("{}/{} n={}:", w.group, w.name, n);
  std::optional<long long> expected_rows;
  bool mismatch = false;
  for (const PathResult& p : paths) {
    if (!p.timing) {
      line += fmt::format(" {} ERROR", p.impl);
      std::fprintf(stderr, "!!! ERROR %s/%s n=%lld %s: %s\n", w.group.c_str(), w.name.c_str(), n,
                   p.impl.c_str(), p.error.c_str());
      JsonObject record;
      record.add("group", w.group).add("workload", w.name).add("size", n).add("impl", p.impl);
      record.add("error", p.error);
      ctx.results.push_back(record);
      continue;
    }
    const Timing& t = *p.timing;
    line += fmt::format(" {} {:.1f}us ({} rows)", p.impl, t.median_us, t.rows);
    if (!expected_rows) expected_rows = t.rows;
    if (t.rows != *expected_rows) mismatch = true;
    JsonObject record = timing_record(w.group, w.name, n, p.impl, t);
    if (!w.note.empty()) record.add("note", w.note);
    if (p.impl == "sqlite") record.add("plan", plan_of(plain, with_size(w.sql, n)));
    ctx.results.push_back(record);
  }
  progress(ctx, line);
  if (mismatch) {
    std::string counts;
    JsonObject m;
    m.add("group", w.group).add("workload", w.name).add("size", n);
    for (const PathResult& p : paths) {
      if (p.timing) {
        counts += fmt::format(" {}={}", p.impl, p.timing->rows);
        m.add(p.impl + "_rows", p.timing->rows);
      }
    }
    std::fprintf(stderr, "!!! ROW COUNT MISMATCH %s/%s n=%lld:%s\n    datalog: %s\n    sql: %s\n",
                 w.group.c_str(), w.name.c_str(), n, counts.c_str(), datalog.c_str(),
                 with_size(w.sql, n).c_str());
    ctx.mismatches.push_back(m);
  }
}

}  // namespace bench
