#include "lmdb_store/log_body_codec.h"

#include <zstd.h>

#include <fmt/format.h>

namespace datalog::store {

namespace {

constexpr int kLevel = 1;  // zstd's fastest standard level: ~400 MB/s here, a bulk load's log to 30%

Status damaged(std::uint64_t seq, const char* what) {
  return Status(StatusCode::Corrupt,
                fmt::format("the graph's log is damaged: row {} has a compressed body that {}", seq, what));
}

}  // namespace

LogBodyPacker::~LogBodyPacker() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(context_)); }

std::string_view LogBodyPacker::pack(std::string_view raw, std::string* scratch) {
  if (raw.size() < kMinPackedBody || raw.size() > kMaxPackedBody) return raw;
  if (!context_) {
    ZSTD_CCtx* c = ZSTD_createCCtx();
    if (!c) return raw;  // out of memory: the body is still right as it is
    // The frame states its decompressed size (the default) and ends with a checksum of it, so
    // damage to a stored body is found when it is read, not replayed as other records.
    if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, kLevel)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1))) {
      ZSTD_freeCCtx(c);
      return raw;
    }
    context_ = c;
  }
  scratch->resize(1 + ZSTD_compressBound(raw.size()));
  (*scratch)[0] = kPackedBodyTag;
  const std::size_t n = ZSTD_compress2(static_cast<ZSTD_CCtx*>(context_), scratch->data() + 1,
                                       scratch->size() - 1, raw.data(), raw.size());
  if (ZSTD_isError(n) || n + 1 >= raw.size()) return raw;
  scratch->resize(n + 1);
  return *scratch;
}

Status unpack_log_body(std::uint64_t seq, std::string_view stored, std::string* raw) {
  if (!is_packed_body(stored)) {
    raw->assign(stored);
    return Status::OK();
  }
  const std::string_view frame = stored.substr(1);
  const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
    return damaged(seq, "does not state its size");
  }
  if (size > kMaxPackedBody) return damaged(seq, "states a size larger than any the log writes");
  // The frame must be the whole stored value: trailing bytes would be a second frame or damage.
  if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size()) {
    return damaged(seq, "is not one whole frame");
  }
  raw->resize(static_cast<std::size_t>(size));
  const std::size_t n = ZSTD_decompress(raw->data(), raw->size(), frame.data(), frame.size());
  if (ZSTD_isError(n) || n != raw->size()) {
    raw->clear();
    return damaged(seq, "does not decompress (or fails its checksum)");
  }
  return Status::OK();
}

}  // namespace datalog::store
