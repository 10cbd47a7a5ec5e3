// lmdb_store/tx_log_format.h: the byte layout of the transaction log table.
//
//   key tx (8 bytes, big-endian)            -> wall time ms (i64) | datom count (u64)
//   key tx | chunk number (4 bytes, BE)     -> datoms: repeated [u16 key length][eavt key][vt]
// The header sorts before its chunks, and transactions in counter order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "lmdb_store/status.h"

namespace datalog::store {

inline constexpr std::size_t kTxChunkKeySize = 12;
inline constexpr std::size_t kTxChunkBytes = 64 * 1024;  // flush a chunk when it grows past this

std::string tx_header_key(std::uint64_t tx);
std::string tx_chunk_key(std::uint64_t tx, std::uint32_t chunk);
void append_tx_datom(std::string& chunk, std::string_view eavt_key, std::string_view valid_to);
Status decode_tx_chunk(std::string_view chunk,
                       const std::function<Status(std::string_view, std::string_view)>& each);

}  // namespace datalog::store
