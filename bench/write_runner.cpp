#include "write_runner.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "fixtures.h"
#include "storage_measures.h"
#include "stores.h"

namespace bench {
namespace {

constexpr long long kBatch = 100;
constexpr long long kBenchEntity = 3'000'000'000;

std::vector<Fact> batch_facts(const char* prefix) {
  std::vector<Fact> facts;
  for (long long i = 0; i < kBatch; ++i) facts.push_back({numbered(prefix, i), Attr::val, i});
  return facts;
}

// Bytes this process has passed to write calls so far (/proc/self/io's wchar).
long long bytes_written() {
  std::ifstream io("/proc/self/io");
  std::string key;
  long long value = 0;
  while (io >> key >> value) {
    if (key == "wchar:") return value;
  }
  return 0;
}

// The 4 KiB pages one call writes, averaged over a few calls made apart from the timing (the
// pairs below are timed side by side, so the timed calls' bytes mix both stores').
double pages_per_call(const std::function<long long()>& call) {
  constexpr int kCalls = 20;
  const long long before = bytes_written();
  for (int i = 0; i < kCalls; ++i) call();
  return static_cast<double>(bytes_written() - before) / 4096.0 / kCalls;
}

// Ours and the baseline, timed round by round in turn: this shared machine's slow stretches
// (seen to move a write's time by 30% between blocks a second apart) then reach both alike.
std::pair<Timing, Timing> measure_pair(const std::function<long long()>& ours,
                                       const std::function<long long()>& plain, RunContext& ctx) {
  const std::vector<Timing> t = measure_interleaved({ours, plain}, ctx.writes);
  return {t[0], t[1]};
}

void record_pair(const std::string& group, const std::string& name, long long n,
                 const Timing& ours, const Timing& plain, long long facts_per_call,
                 RunContext& ctx, double pages_per_call = 0) {
  for (const auto& [impl, t] : {std::pair<std::string, const Timing&>{"exec", ours}, {"sqlite", plain}}) {
    JsonObject record = timing_record(group, name, n, impl, t);
    record.add("facts_per_call", facts_per_call);
    if (impl == "exec" && pages_per_call > 0) record.add("pages_per_call", pages_per_call);
    record.add("facts_per_s", static_cast<double>(facts_per_call) / (t.median_us * 1e-6));
    ctx.results.push_back(record);
  }
  progress(ctx, fmt::format("{}/{} n={}: exec {:.1f}us sqlite {:.1f}us", group, name, n,
                            ours.median_us, plain.median_us));
}

}  // namespace

void run_write_workloads(long long n, Connection& ours, Connection& plain, RunContext& ctx) {
  Statement exec = ours.prepare("SELECT datalog_exec('g', ?1)");
  long long tx = 1'000'000;  // the baseline's transaction counter for these writes
  Statement upsert = plain.prepare(
      "INSERT OR REPLACE INTO facts(e, a, v, tx, valid_from) VALUES (?1, 1, ?2, ?3, ?4)");
  Statement close_valid = plain.prepare(
      "UPDATE facts SET valid_to = ?4, tx = ?3 WHERE e = ?1 AND a = 1 AND v = ?2");
  auto plain_write = [&](Statement& stmt, long long e, long long v) {
    stmt.bind(1, e);
    stmt.bind(2, v);
    stmt.bind(3, ++tx);
    stmt.bind(4, now_ms());
    return stmt.run();
  };

  const std::string single = "(transact [[:ebench :val 0]])";
  auto run_exec = [&] { return exec.run(); };
  exec.bind(1, single);
  const auto [single_ours, single_plain] =
      measure_pair(run_exec, [&] { return plain_write(upsert, kBenchEntity, 0); }, ctx);
  const double single_pages = pages_per_call(run_exec);
  record_pair("insert", "single_fact", n, single_ours, single_plain, 1, ctx, single_pages);
  // The same I/O without LMDB: what a commit that writes that many pages costs on this disk.
  measure_commit_io("commit_io_single_fact", single_pages, n, ctx);

  const std::vector<Fact> inserts = batch_facts(":eb");
  exec.bind(1, facts_command("transact", inserts, 0, inserts.size()));
  const auto [batch_ours, batch_plain] = measure_pair(
      run_exec,
      [&] {
        plain.exec("BEGIN");
        for (const Fact& f : inserts) plain_write(upsert, f.e.id, std::get<long long>(f.v));
        plain.exec("COMMIT");
        return kBatch;
      },
      ctx);
  const double batch_pages = pages_per_call(run_exec);
  record_pair("insert", "batch_100", n, batch_ours, batch_plain, kBatch, ctx, batch_pages);
  measure_commit_io("commit_io_batch_100", batch_pages, n, ctx);

  exec.bind(1, single);
  const auto [explicit_ours, explicit_plain] = measure_pair(
      [&] {
        ours.exec("BEGIN");
        exec.run();
        ours.exec("COMMIT");
        return 1LL;
      },
      [&] {
        plain.exec("BEGIN");
        plain_write(upsert, kBenchEntity, 0);
        plain.exec("COMMIT");
        return 1LL;
      },
      ctx);
  record_pair("insert", "explicit_tx", n, explicit_ours, explicit_plain, 1, ctx);

  exec.bind(1, "(retract [[:e0 :val 0]])");
  const auto [retract_ours, retract_plain] =
      measure_pair(run_exec, [&] { return plain_write(close_valid, 0, 0); }, ctx);
  record_pair("retract", "single_fact", n, retract_ours, retract_plain, 1, ctx);

  const std::vector<Fact> retracts = batch_facts(":e");
  exec.bind(1, facts_command("retract", retracts, 0, retracts.size()));
  const auto [rbatch_ours, rbatch_plain] = measure_pair(
      run_exec,
      [&] {
        plain.exec("BEGIN");
        for (const Fact& f : retracts) plain_write(close_valid, f.e.id, std::get<long long>(f.v));
        plain.exec("COMMIT");
        return kBatch;
      },
      ctx);
  const double rbatch_pages = pages_per_call(run_exec);
  record_pair("retract", "batch_100", n, rbatch_ours, rbatch_plain, kBatch, ctx, rbatch_pages);
}

}  // namespace bench
