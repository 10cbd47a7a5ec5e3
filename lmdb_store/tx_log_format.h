// lmdb_store/tx_log_format.h: the byte layout of the index's transaction table (txlog).
//
//   key tx (8 bytes, big-endian)            -> wall time ms (i64) | datom count (u64) | check byte
//   key tx | chunk number (4 bytes, BE)     -> datoms: repeated [u16 key length][eavt key][vt]
// Transactions sort in counter order. The chunks, a copy of each transaction's datoms, are only
// in graphs of the first storage format (read by v1_graph_reader.h): since the log moved into
// SQLite (storage v2), which holds every transaction's records, the index keeps the headers only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "lmdb_store/mdb_status.h"

namespace datalog::store {

inline constexpr std::size_t kTxChunkKeySize = 12;

std::string tx_header_key(std::uint64_t tx);
std::string tx_chunk_key(std::uint64_t tx, std::uint32_t chunk);
Status decode_tx_chunk(std::string_view chunk,
                       const std::function<Status(std::string_view, std::string_view)>& each);

}  // namespace datalog::store
