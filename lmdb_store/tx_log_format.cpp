#include "lmdb_store/tx_log_format.h"

#include "lmdb_store/key_coding.h"

namespace datalog::store {

std::string tx_header_key(std::uint64_t tx) {
  std::string k;
  put_u64(k, tx);
  return k;
}

std::string tx_chunk_key(std::uint64_t tx, std::uint32_t chunk) {
  std::string k = tx_header_key(tx);
  for (int shift = 24; shift >= 0; shift -= 8) k += static_cast<char>((chunk >> shift) & 0xFF);
  return k;
}

Status decode_tx_chunk(std::string_view chunk,
                       const std::function<Status(std::string_view, std::string_view)>& each) {
  std::size_t pos = 0;
  while (pos < chunk.size()) {
    if (pos + 2 > chunk.size()) return Status(StatusCode::Corrupt, "truncated log chunk");
    const std::size_t len = (static_cast<std::uint8_t>(chunk[pos]) << 8) |
                            static_cast<std::uint8_t>(chunk[pos + 1]);
    pos += 2;
    if (pos + len + 8 > chunk.size()) return Status(StatusCode::Corrupt, "truncated log chunk");
    DATALOG_RETURN_IF_ERROR(each(chunk.substr(pos, len), chunk.substr(pos + len, 8)));
    pos += len + 8;
  }
  return Status::OK();
}

}  // namespace datalog::store
