// The key decoder on any bytes, as a key of each index and as a value: decoded or refused,
// never read past its end.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lmdb_store/datom_layout.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/stored_value.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace datalog::store;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The data of an unbounded record of these bytes: its check byte matches, so the key is decoded.
  const std::string record_data = encode_record_data(bytes, kForever);
  for (const IndexId index : {IndexId::Eavt, IndexId::Aevt, IndexId::Avet, IndexId::Vaet}) {
    datalog::Datom d;
    GiantRef giant;
    (void)decode_datom(index, bytes, record_data, &d, &giant, nullptr);
    (void)decode_datom(index, bytes, bytes, &d, &giant, nullptr, /*skip_value=*/true);
  }
  (void)decode_value(bytes);
  (void)decode_stored_value(bytes);
  return 0;
}
