#include <cmath>

#include <fmt/format.h>

#include "engine/time_text.h"
#include "engine/uuid_text.h"
#include "extension/io/history_edn.h"
#include "extension/io/text_codec.h"

namespace datalog::ext::io {

namespace {

// Value::to_edn escapes a string as the dialect's reader reads it back.
std::string edn_string(std::string_view s) { return Value::string(std::string(s)).to_edn(); }

std::string edn_float(double d) {
  const std::string text = fmt::format("{}", d);
  // The dialect's reader takes digits '.' digits; anything else is written as text.
  if (std::isfinite(d) && text.find('.') != std::string::npos && text.find('e') == std::string::npos) return text;
  if (std::isfinite(d) && text.find_first_of("e.") == std::string::npos) return text + ".0";
  return fmt::format("{{:float {}}}", edn_string(std::isinf(d) ? (d > 0 ? "inf" : "-inf") : text));
}

// The dialect's EDN where it can spell the value (Value::to_edn), a tagged map where it cannot.
std::string edn_value(const Value& v) {
  switch (v.kind()) {
    case ValueKind::Float: return edn_float(v.as_float());
    case ValueKind::Ref: return fmt::format("{{:ref {}}}", v.as_ref());
    case ValueKind::Bytes: return fmt::format("{{:bytes \"{}\"}}", hex_encode(v.as_bytes()));
    default: return v.to_edn();
  }
}

class RecordWriter final : public store::LogRecordVisitor {
 public:
  explicit RecordWriter(std::string& out) : out_(out) {}
  std::uint64_t facts = 0;

  Status ident(EntityId id, const Value& name) override {
    return add(fmt::format("[:ident {} {}]", id, edn_value(name)));
  }
  Status asserted(EntityId e, EntityId a, const Value& v, std::int64_t from, std::int64_t to) override {
    ++facts;
    return add(fmt::format("[:assert {} {} {} {} {}]", e, a, edn_value(v), from, to));
  }
  Status retracted(EntityId e, EntityId a, const Value& v) override {
    ++facts;
    return add(fmt::format("[:retract {} {} {}]", e, a, edn_value(v)));
  }
  Status rule(const StoredRule& r) override {
    return add(fmt::format("[:rule {} {}]", edn_string(r.name), edn_string(r.source)));
  }
  Status rules_removed(const std::string& name) override {
    return add(fmt::format("[:unrule {}]", edn_string(name)));
  }
  Status counter_consumed() override { return add("[:counter]"); }

 private:
  Status add(const std::string& record) {
    out_ += "\n  ";
    out_ += record;
    return Status::OK();
  }
  std::string& out_;
};

}  // namespace

Status export_history(GraphLog& log, std::uint64_t through, OutputFile& out, InterruptProbe& probe,
                      ReplayProgress& progress, std::uint64_t* facts) {
  GraphLog::Tip tip;
  DATALOG_RETURN_IF_ERROR(log.tip(&tip));
  out.write(fmt::format("{{{} 1 :rows {} :last-tx {}}}\n", kHistoryKey, through, tip.tx));
  std::string text;
  std::uint64_t rows = 0;
  RecordWriter records(text);
  const Status read = log.read(0, through, [&](const store::LogRow& row) -> Status {
    text = fmt::format("{{:seq {} :tx {} :tx-time {}\n :records [", row.seq, row.tx, row.tx_time_ms);
    DATALOG_RETURN_IF_ERROR(store::read_log_body(row.seq, row.tx_time_ms, row.body, records));
    text += "]}\n";
    out.write(text);
    progress.set_done(++rows, records.facts);
    if (probe.interrupted()) return Status(StatusCode::Interrupted, "interrupted");
    return Status::OK();
  });
  DATALOG_RETURN_IF_ERROR(read);
  *facts = records.facts;
  return Status::OK();
}

}  // namespace datalog::ext::io
