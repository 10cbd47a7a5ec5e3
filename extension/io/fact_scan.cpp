#include "extension/io/fact_scan.h"

#include <unordered_map>

#include <fmt/format.h>

namespace datalog::ext::io {

namespace {
constexpr std::uint64_t kCheckEvery = 4096;
constexpr std::size_t kMaxCachedIdents = 1u << 16;
}  // namespace

Status FactScan::run(const TimeView& view, const std::function<Status(const ScannedFact&)>& each) {
  Status st;
  std::unordered_map<EntityId, std::optional<Value>> names;
  EntityId last_e = -1;
  std::optional<Value> e_ident;
  const std::optional<Value> none;
  auto name_of = [&](EntityId id, std::optional<Value>* out) -> Status {
    if (auto it = names.find(id); it != names.end()) {
      *out = it->second;
      return Status::OK();
    }
    DATALOG_RETURN_IF_ERROR(graph_.ident_of(id, out));
    if (names.size() >= kMaxCachedIdents) names.clear();
    names.emplace(id, *out);
    return Status::OK();
  };
  const Status scanned = graph_.scan(DatomFilter{}, view, [&](const Datom& d) {
    if (d.e != last_e) {
      st = graph_.ident_of(d.e, &e_ident);
      if (!st.ok()) return false;
      last_e = d.e;
    }
    std::optional<Value> a_ident, ref_ident;
    st = name_of(d.a, &a_ident);
    if (st.ok() && (!a_ident || !a_ident->is(ValueKind::Keyword))) {
      st = Status(StatusCode::Corrupt, fmt::format("attribute {} has no keyword", d.a));
    }
    if (st.ok() && d.v.is(ValueKind::Ref)) st = name_of(d.v.as_ref(), &ref_ident);
    if (st.ok()) st = each(ScannedFact{d, e_ident, *a_ident, d.v.is(ValueKind::Ref) ? ref_ident : none});
    if (!st.ok()) return false;
    if (++facts_ % kCheckEvery == 0) {
      progress_.set_done(0, facts_);
      if (probe_.interrupted()) {
        st = Status(StatusCode::Interrupted, "interrupted");
        return false;
      }
    }
    return true;
  });
  return st.ok() ? scanned : st;
}

}  // namespace datalog::ext::io
