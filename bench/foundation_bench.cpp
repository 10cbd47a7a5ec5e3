// bench/foundation_bench.cpp: bulk load through INSERT and point lookups by entity + attribute.
//
//   build/bench/foundation_bench [facts=1000000] [lookups=20000] [dir=/tmp]
//
// Loads `facts` facts [i :val i] through a prepared INSERT into the store table in one SQLite
// transaction, reports the time and the graph's size on disk, then times point lookups
// `SELECT v FROM g WHERE e = ? AND a = ':val'` (random ids, prepared once) and prints the plan.
// The same work on a plain SQLite table (WITHOUT ROWID, primary key (e, a, v), index (a, v, e),
// WAL) runs in the same process as the baseline.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace {

using Clock = std::chrono::steady_clock;

void check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    std::exit(1);
  }
}

void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "%s: %s\n", sql.c_str(), err);
    std::exit(1);
  }
}

long long file_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : 0;
}

struct Summary {
  double median_us, min_us, max_us;
};

Summary summarize(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.front(), us.back()};
}

double load(sqlite3* db, const std::string& insert_sql, long facts) {
  sqlite3_stmt* stmt = nullptr;
  check(sqlite3_prepare_v2(db, insert_sql.c_str(), -1, &stmt, nullptr), db, "prepare insert");
  const auto start = Clock::now();
  exec(db, "BEGIN");
  for (long i = 0; i < facts; ++i) {
    sqlite3_bind_int64(stmt, 1, i);
    sqlite3_bind_int64(stmt, 2, i);
    check(sqlite3_step(stmt), db, "insert");
    sqlite3_reset(stmt);
  }
  exec(db, "COMMIT");
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  sqlite3_finalize(stmt);
  return seconds;
}

Summary lookups(sqlite3* db, const std::string& sql, long facts, int count) {
  sqlite3_stmt* stmt = nullptr;
  check(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), db, "prepare lookup");
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<long> pick(0, facts - 1);
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(count));
  for (int warm = 0; warm < 1000; ++warm) {
    sqlite3_bind_int64(stmt, 1, pick(rng));
    while (sqlite3_step(stmt) == SQLITE_ROW) {}
    sqlite3_reset(stmt);
  }
  for (int i = 0; i < count; ++i) {
    const long id = pick(rng);
    const auto start = Clock::now();
    sqlite3_bind_int64(stmt, 1, id);
    int rows = 0;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      if (sqlite3_column_int64(stmt, 0) != id) std::exit(2);
      ++rows;
    }
    sqlite3_reset(stmt);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (rows != 1) {
      std::fprintf(stderr, "lookup of %ld returned %d rows\n", id, rows);
      std::exit(2);
    }
  }
  sqlite3_finalize(stmt);
  return summarize(std::move(us));
}

std::string plan_of(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  check(sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &stmt, nullptr), db,
        "plan");
  std::string plan;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    plan += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3));
  }
  sqlite3_finalize(stmt);
  return plan;
}

}  // namespace

int main(int argc, char** argv) {
  const long facts = argc > 1 ? std::atol(argv[1]) : 1'000'000;
  const int count = argc > 2 ? std::atoi(argv[2]) : 20'000;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  const std::string base = fmt::format("{}/foundation-bench-{}", dir, getpid());

  // sqlite-datalog
  sqlite3* db = nullptr;
  check(sqlite3_open((base + ".db").c_str(), &db), db, "open");
  sqlite3_enable_load_extension(db, 1);
  char* err = nullptr;
  if (sqlite3_load_extension(db, DATALOG_EXTENSION_PATH, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "load: %s\n", err);
    return 1;
  }
  exec(db, "CREATE VIRTUAL TABLE g USING datalog");
  const double load_s = load(db, "INSERT INTO g(e, a, v) VALUES (?1, ':val', ?2)", facts);
  const auto n = static_cast<double>(facts);
  const long long graph_bytes = file_bytes(base + ".db-g.graph") + file_bytes(base + ".db");
  const std::string lookup_sql = "SELECT v FROM g WHERE e = ?1 AND a = ':val'";
  const std::string plan = plan_of(db, lookup_sql);
  const Summary ours = lookups(db, lookup_sql, facts, count);
  sqlite3_close(db);

  // plain SQLite baseline
  check(sqlite3_open((base + "-plain.db").c_str(), &db), db, "open baseline");
  exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  exec(db, "CREATE TABLE facts(e INTEGER NOT NULL, a TEXT NOT NULL, v, PRIMARY KEY (e, a, v)) "
           "WITHOUT ROWID; CREATE INDEX facts_ave ON facts(a, v, e);");
  const double base_load_s = load(db, "INSERT INTO facts(e, a, v) VALUES (?1, ':val', ?2)", facts);
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  const long long base_bytes = file_bytes(base + "-plain.db");
  const Summary plain = lookups(db, "SELECT v FROM facts WHERE e = ?1 AND a = ':val'", facts, count);
  sqlite3_close(db);

  fmt::print("facts                     {}\n", facts);
  fmt::print("load, one transaction     sqlite-datalog {:.2f} s ({:.0f} facts/s) | plain SQLite {:.2f} s ({:.0f} facts/s)\n",
             load_s, n / load_s, base_load_s, n / base_load_s);
  fmt::print("file size                 {} ({:.0f} B/fact) | plain SQLite {} ({:.0f} B/fact)\n",
             graph_bytes, static_cast<double>(graph_bytes) / n, base_bytes,
             static_cast<double>(base_bytes) / n);
  fmt::print("lookup plan               {}\n", plan);
  fmt::print("point lookup e+a ({} runs) sqlite-datalog median {:.2f} us (min {:.2f}, max {:.2f}) | plain SQLite median {:.2f} us (min {:.2f}, max {:.2f})\n",
             count, ours.median_us, ours.min_us, ours.max_us, plain.median_us, plain.min_us,
             plain.max_us);
  for (const char* suffix : {".db", ".db-g.graph", ".db-g.graph-lock", ".db-g.graph-sync", "-plain.db",
                             "-plain.db-wal", "-plain.db-shm"}) {
    ::unlink((base + suffix).c_str());
  }
  return 0;
}
