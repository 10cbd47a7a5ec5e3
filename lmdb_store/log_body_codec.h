// lmdb_store/log_body_codec.h: how a log row's body is kept in its SQLite row.
//
// A large body (a bulk load's row holds up to about a MiB of records) is kept compressed: its
// records repeat tags, attribute ids, neighbouring entity ids and name prefixes, and zstd at its
// fastest level stores a bulk load's rows in under a third of their bytes (about 28 of a fact's
// 158 bytes were its log record before). A small body (a single fact, a handful of facts) is
// kept as it is: compressing it gains nothing and costs a commit time.
//
//   kept as is:  the records (log_records.h), whose first byte is a record's tag
//   compressed:  'Z' | a zstd frame that states its decompressed size and ends with a checksum
//
// No record tag is 'Z', so the first byte tells the two apart. The log's format 2 (graph_log.h)
// is the one whose rows may be compressed.
//
// A body comes from a database file, which may come from someone else: unpacking checks the
// frame, refuses a stated size above kMaxPackedBody before allocating, and checks that the frame
// gave exactly that many bytes and that they match the frame's checksum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lmdb_store/mdb_status.h"

namespace datalog::store {

inline constexpr char kPackedBodyTag = 'Z';
inline constexpr std::size_t kMinPackedBody = 1024;                     // smaller bodies are kept as is
inline constexpr std::size_t kMaxPackedBody = std::size_t{64} << 20;    // larger bodies are kept as is

// Compresses bodies (zstd at its fastest level), reusing its working memory from one body to the
// next. One per writer; not thread-safe.
class LogBodyPacker {
 public:
  LogBodyPacker() = default;
  ~LogBodyPacker();
  LogBodyPacker(const LogBodyPacker&) = delete;
  LogBodyPacker& operator=(const LogBodyPacker&) = delete;

  // What to store for body raw: raw itself when it is small, huge or does not shrink, otherwise
  // its compressed form, held in *scratch.
  std::string_view pack(std::string_view raw, std::string* scratch);

 private:
  void* context_ = nullptr;  // ZSTD_CCtx, made on the first body worth compressing
};

// Whether a stored body is compressed.
inline bool is_packed_body(std::string_view stored) {
  return !stored.empty() && stored.front() == kPackedBodyTag;
}

// The records of stored body of log row seq into *raw (a copy when it was kept as is). A damaged
// compressed body is Corrupt, naming the row.
Status unpack_log_body(std::uint64_t seq, std::string_view stored, std::string* raw);

}  // namespace datalog::store
