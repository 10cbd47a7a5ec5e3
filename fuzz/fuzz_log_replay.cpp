// A log row's body from a hostile database, as stored (compressed or not): unpacked, decoded
// record by record, then replayed into an index (inside a transaction that is then abandoned). Errors are fine; crashes, leaks and
// undefined behaviour are not.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "lmdb_store/log_body_codec.h"
#include "lmdb_store/log_records.h"

namespace {

struct Ignore final : datalog::store::LogRecordVisitor {
  using Status = datalog::Status;
  Status ident(datalog::EntityId, const datalog::Value&) override { return Status::OK(); }
  Status asserted(datalog::EntityId, datalog::EntityId, const datalog::Value&, std::int64_t,
                  std::int64_t) override {
    return Status::OK();
  }
  Status retracted(datalog::EntityId, datalog::EntityId, const datalog::Value&) override {
    return Status::OK();
  }
  Status rule(const datalog::StoredRule&) override { return Status::OK(); }
  Status rules_removed(const std::string&) override { return Status::OK(); }
  Status counter_consumed() override { return Status::OK(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace datalog;
  static std::shared_ptr<store::GraphEnv> env = fuzz::private_graph();
  store::LogRow row;
  row.seq = 1;
  row.tx = 1;
  row.tx_time_ms = 1'000;
  const std::string_view stored(reinterpret_cast<const char*>(data), size);
  if (!store::unpack_log_body(row.seq, stored, &row.body).ok()) return 0;
  Ignore ignore;
  (void)store::read_log_body(row.seq, row.tx_time_ms, row.body, ignore);
  std::unique_ptr<store::WriteTxn> w;
  if (!store::WriteTxn::begin(env, fuzz::kTimeout, &w).ok()) return 0;
  if (w->replay_row(row).ok()) (void)w->finish_replay();
  w->abort();
  return 0;
}
