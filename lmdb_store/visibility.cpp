#include "lmdb_store/visibility.h"

#include <optional>

namespace datalog::store {

void append_visible(std::vector<Datom>& group, const TimeView& view, std::vector<Datom>& out) {
  std::optional<std::uint64_t> retracted_at;
  for (const Datom& d : group) {
    if (d.tx <= view.as_of && d.op == Op::Retract) retracted_at = d.tx;  // records are tx-ordered
  }
  const std::size_t first = out.size();
  for (Datom& d : group) {
    if (d.tx > view.as_of || d.op == Op::Retract) continue;
    if (retracted_at) {
      const bool survives = d.op == Op::Reassert ? d.tx >= *retracted_at : d.tx > *retracted_at;
      if (!survives) continue;
    }
    if (!valid_in_view(d, view)) continue;
    // One row per valid-time window: a later assertion of the same window replaces it.
    bool replaced = false;
    for (std::size_t i = first; i < out.size(); ++i) {
      if (out[i].valid_from == d.valid_from && out[i].valid_to == d.valid_to) {
        out[i] = std::move(d);
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(std::move(d));
  }
}

}  // namespace datalog::store
