// bench/stores.h: the two stores under test, created side by side and loaded with one Fixture.
//
// sqlite-datalog: `<base>.db` holding `CREATE VIRTUAL TABLE g USING datalog` (graph in
// `<base>.graph`); facts go in as `datalog_exec('g', '(transact [...])')`, one command per
// fixture batch.
//
// Plain SQLite: `<base>-plain.db` in WAL mode with synchronous=FULL and a 1 GiB mmap_size (reads
// through a memory map, like LMDB's; every commit is fsynced,
// like an LMDB commit), holding
//   facts(e INTEGER, a INTEGER, v ANY, tx INTEGER, valid_from INTEGER, valid_to INTEGER)
//   WITHOUT ROWID, PRIMARY KEY (e, a, v), INDEX (a, v, e)
// with tx the batch number and valid_from the load time in ms: the columns a SQLite user keeps to
// answer the same as-of and valid-time questions (current state only; no retraction history).
#pragma once

#include <string>

#include "fixtures.h"
#include "sqlite_session.h"

namespace bench {

std::string ours_db_path(const std::string& base);
std::string plain_db_path(const std::string& base);

Connection open_ours(const std::string& base);   // creates `g` if it does not exist
Connection open_plain(const std::string& base);  // creates the schema if it does not exist
// The baseline schema (attribute names, facts and their indexes), where it does not exist yet.
void create_plain_schema(Connection& db);

// Loads the fixture; every `group` facts form one SQL transaction (one durable commit), so a
// large setup does not pay one fsync per batch. Returns the seconds taken.
double load_ours(Connection& db, const Fixture& f, long long group);
double load_plain(Connection& db, const Fixture& f, long long group);

// Binds a fact's value to parameter `index` in the baseline encoding.
void bind_value(Statement& stmt, int index, const FactValue& v);

// Bytes on disk: the graph plus its database for ours, the checkpointed database for plain.
long long ours_bytes(Connection& db, const std::string& base);
long long plain_bytes(Connection& db, const std::string& base);

// Removes every file of both stores.
void remove_stores(const std::string& base);

long long now_ms();

}  // namespace bench
