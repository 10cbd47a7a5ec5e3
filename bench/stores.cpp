#include "stores.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "timing.h"

namespace bench {
namespace {

long long file_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : 0;
}

}  // namespace

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string ours_db_path(const std::string& base) { return base + ".db"; }
std::string plain_db_path(const std::string& base) { return base + "-plain.db"; }

Connection open_ours(const std::string& base) {
  Connection db(ours_db_path(base), true);
  // The host database is set up as the baseline's: WAL, every commit synced. In rollback-journal
  // mode SQLite would lock and stat the host file on every statement, a cost of the host
  // database that the graph tables never asked for.
  db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS g USING datalog");
  return db;
}

Connection open_plain(const std::string& base) {
  Connection db(plain_db_path(base), false);
  db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  // Reads through a memory map, as LMDB's do: with SQLite's default 2 MB page cache a lookup in
  // a larger database reads its pages with a pread() each, a system call a tuned reader avoids.
  db.exec("PRAGMA mmap_size=1073741824;");
  create_plain_schema(db);
  return db;
}

void create_plain_schema(Connection& db) {
  db.exec(
      "CREATE TABLE IF NOT EXISTS attribute(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);"
      "CREATE TABLE IF NOT EXISTS facts(e INTEGER NOT NULL, a INTEGER NOT NULL, v ANY NOT NULL,"
      " tx INTEGER NOT NULL, valid_from INTEGER NOT NULL, valid_to INTEGER,"
      " PRIMARY KEY (e, a, v)) WITHOUT ROWID, STRICT;"
      "CREATE INDEX IF NOT EXISTS facts_ave ON facts(a, v, e);");
  Statement name = db.prepare("INSERT OR IGNORE INTO attribute(id, name) VALUES (?1, ?2)");
  for (const Attr a : all_attrs()) {
    name.bind(1, static_cast<long long>(a));
    name.bind(2, std::string(attr_keyword(a)));
    name.run();
  }
}

double load_ours(Connection& db, const Fixture& f, long long group) {
  const auto start = Clock::now();
  Statement exec = db.prepare("SELECT datalog_exec('g', ?1)");
  const std::size_t batch = static_cast<std::size_t>(f.batch);
  const std::size_t per_txn = static_cast<std::size_t>(group);
  for (std::size_t begin = 0; begin < f.facts.size(); begin += per_txn) {
    const std::size_t txn_end = std::min(f.facts.size(), begin + per_txn);
    db.exec("BEGIN");
    for (std::size_t b = begin; b < txn_end; b += batch) {
      exec.bind(1, facts_command("transact", f.facts, b, std::min(txn_end, b + batch)));
      exec.run();
    }
    db.exec("COMMIT");
  }
  for (const std::string& rule : f.rules) {
    exec.bind(1, rule);
    exec.run();
  }
  return seconds_since(start);
}

void bind_value(Statement& stmt, int index, const FactValue& v) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, long long>) stmt.bind(index, x);
        if constexpr (std::is_same_v<T, std::string>) stmt.bind(index, x);
        if constexpr (std::is_same_v<T, bool>) stmt.bind(index, static_cast<long long>(x ? 1 : 0));
        if constexpr (std::is_same_v<T, Entity>) stmt.bind(index, x.id);
        if constexpr (std::is_same_v<T, Keyword>) stmt.bind(index, x.text);
      },
      v);
}

double load_plain(Connection& db, const Fixture& f, long long group) {
  const auto start = Clock::now();
  Statement insert = db.prepare(
      "INSERT OR REPLACE INTO facts(e, a, v, tx, valid_from) VALUES (?1, ?2, ?3, ?4, ?5)");
  const long long valid_from = now_ms();
  db.exec("BEGIN");
  for (std::size_t i = 0; i < f.facts.size(); ++i) {
    if (i > 0 && i % static_cast<std::size_t>(group) == 0) db.exec("COMMIT; BEGIN");
    const Fact& fact = f.facts[i];
    insert.bind(1, fact.e.id);
    insert.bind(2, static_cast<long long>(fact.a));
    bind_value(insert, 3, fact.v);
    insert.bind(4, static_cast<long long>(i / static_cast<std::size_t>(f.batch)) + 1);
    insert.bind(5, valid_from);
    insert.run();
  }
  db.exec("COMMIT");
  return seconds_since(start);
}

// The graph is its log in the database and its index beside it (app.db -> app.db-g.graph);
// the database is checkpointed first, as the baseline's is.
long long ours_bytes(Connection& db, const std::string& base) {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return file_bytes(ours_db_path(base) + "-g.graph") + file_bytes(ours_db_path(base)) +
         file_bytes(ours_db_path(base) + "-wal");
}

long long plain_bytes(Connection& db, const std::string& base) {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return file_bytes(plain_db_path(base)) + file_bytes(plain_db_path(base) + "-wal");
}

void remove_stores(const std::string& base) {
  for (const char* suffix : {".db", ".db-journal", ".db-wal", ".db-shm", ".db-g.graph",
                             ".db-g.graph-lock", ".db-g.graph-sync", "-plain.db", "-plain.db-wal",
                             "-plain.db-shm"}) {
    ::unlink((base + suffix).c_str());
  }
}

}  // namespace bench
