// lmdb_store/meta.h: the graph's metadata table: format version and counters.
//
// Keys are short ASCII names; values are big-endian u32/u64. All functions run inside a
// caller-owned transaction and return Status; none keeps a pointer into the map.
#pragma once

#include <lmdb.h>

#include <cstdint>
#include <string_view>

#include "lmdb_store/mdb_status.h"

namespace datalog::store {

namespace meta_key {
inline constexpr std::string_view kMagic = "magic";            // "sqlite-datalog graph"
inline constexpr std::string_view kFormat = "format";          // u32 format version
inline constexpr std::string_view kLastTx = "last_tx";         // u64 last committed tx counter
inline constexpr std::string_view kLastTxTime = "last_tx_time";  // i64 wall ms of last_tx
inline constexpr std::string_view kNextIdent = "next_ident";   // u64 next entity id for idents
inline constexpr std::string_view kRecords = "records";        // u64 datom records (all indexes' rows)
inline constexpr std::string_view kEntities = "entities";      // u64 distinct entities in eavt
inline constexpr std::string_view kNextRule = "next_rule";     // u64 sequence of the next rule
// Storage v2: the position in the SQLite log the indexes reflect, and that row's wall time (a
// fingerprint: a log that was replaced by an older or another one rarely matches it).
inline constexpr std::string_view kIndexedSeq = "indexed_seq";    // u64
inline constexpr std::string_view kIndexedTime = "indexed_time";  // u64 (ms)
// Set while the index holds records of a transaction whose log has not committed (a large
// transaction commits the index part way, WriteTxn::commit_interim): the first ident id that
// transaction may have made. Cleared by its commit; left by a crash or a rollback, so the next
// writer rebuilds the index from the log (readers' bound hides the records meanwhile).
inline constexpr std::string_view kUnfinishedFrom = "unfinished_from";  // u64 ident id; 0: none
// The store table the index belongs to: its graph's uuid (from the log), database file, table.
inline constexpr std::string_view kOwnerUuid = "owner_uuid";  // text
inline constexpr std::string_view kOwnerDatabase = "owner_database";  // text
inline constexpr std::string_view kOwnerTable = "owner_table";  // text
inline constexpr std::string_view kOwnerFile = "owner_file";  // text: "device:inode" of the database
}  // namespace meta_key

// Entity ids handed to idents start here, leaving [0, 2^52) to applications that use their own
// integer row ids as entities (LANGUAGE.md header, rule 4).
inline constexpr std::uint64_t kFirstIdentId = std::uint64_t{1} << 52;

Status initialize_meta(MDB_txn* txn, MDB_dbi meta);  // idempotent
Status read_format_version(MDB_txn* txn, MDB_dbi meta, std::uint32_t* version);
Status read_counter(MDB_txn* txn, MDB_dbi meta, std::string_view key, std::uint64_t* value);
Status write_counter(MDB_txn* txn, MDB_dbi meta, std::string_view key, std::uint64_t value);
// Text values (empty when missing).
Status read_text(MDB_txn* txn, MDB_dbi meta, std::string_view key, std::string* value);
Status write_text(MDB_txn* txn, MDB_dbi meta, std::string_view key, std::string_view value);

}  // namespace datalog::store
