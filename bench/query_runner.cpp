#include "query_runner.h"

#include <cstdio>
#include <optional>

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

}  // namespace

void run_query_workload(const QueryWorkload& w, long long n, Connection& ours, Connection& plain,
                        int table_number, RunContext& ctx) {
  const std::string datalog = with_size(w.datalog, n);
  const std::vector<long long> args = w.args ? w.args(n) : std::vector<long long>{};
  // The paths timed side by side. A path whose table cannot be made, or whose first call fails,
  // is reported with its error and left out of the timing.
  struct Candidate {
    std::string impl;
    Statement stmt;
    bool binds_query = false;  // ad hoc: the query text is bound on every call, as users do
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
    if (!args.empty()) select += "(" + placeholders(args.size(), 1).substr(2) + ")";
    Statement named = ours.prepare(select);
    for (std::size_t i = 0; i < args.size(); ++i) named.bind(static_cast<int>(i) + 1, args[i]);
    candidates.push_back({impl, std::move(named)});
  }

  Statement adhoc = ours.prepare("SELECT * FROM datalog_q('g', ?1" +
                                 placeholders(args.size(), 2) + ")");
  for (std::size_t i = 0; i < args.size(); ++i) adhoc.bind(static_cast<int>(i) + 2, args[i]);
  candidates.push_back({"adhoc", std::move(adhoc), true});

  Statement baseline = plain.prepare(with_size(w.sql, n));
  for (std::size_t i = 0; i < args.size(); ++i) baseline.bind(static_cast<int>(i) + 1, args[i]);
  candidates.push_back({"sqlite", std::move(baseline)});

  std::vector<std::function<long long()>> calls;
  std::vector<std::string> timed;
  for (Candidate& c : candidates) {
    try {
      if (c.binds_query) c.stmt.bind(1, datalog);
      c.stmt.run_or_throw();
    } catch (const StepError& e) {
      failed.push_back({c.impl, std::nullopt, e.what()});
      continue;
    }
    calls.push_back([&c, &datalog] {  // candidates no longer grows: &c stays valid
      if (c.binds_query) c.stmt.bind(1, datalog);
      return c.stmt.run_or_throw();
    });
    timed.push_back(c.impl);
  }
  std::vector<PathResult> paths = std::move(failed);
  const std::vector<Timing> timings = measure_interleaved(calls, ctx.reads);
  for (std::size_t i = 0; i < timed.size(); ++i) paths.push_back({timed[i], timings[i], ""});

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
