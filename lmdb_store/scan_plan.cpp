#include "lmdb_store/scan_plan.h"

#include <algorithm>
#include <cmath>

#include "lmdb_store/key_coding.h"

namespace datalog::store {

const char* scan_index_name(ScanIndex index) {
  switch (index) {
    case ScanIndex::Full: return "scan";
    case ScanIndex::Eavt: return "eavt";
    case ScanIndex::Aevt: return "aevt";
    case ScanIndex::Avet: return "avet";
    case ScanIndex::Vaet: return "vaet";
  }
  return "?";
}

IndexId index_of(ScanIndex index) {
  switch (index) {
    case ScanIndex::Aevt: return IndexId::Aevt;
    case ScanIndex::Avet: return IndexId::Avet;
    case ScanIndex::Vaet: return IndexId::Vaet;
    case ScanIndex::Full:
    case ScanIndex::Eavt: return IndexId::Eavt;
  }
  return IndexId::Eavt;
}

ScanPlan plan_scan(const ScanShape& fixed, const GraphStats& graph, const AttributeStats* attribute,
                   ScanChoice choice) {
  const double n = std::max<double>(static_cast<double>(graph.records), 1.0);
  const double entities = std::max<double>(static_cast<double>(graph.entities), 1.0);
  const double attributes = std::max<double>(static_cast<double>(graph.attributes), 1.0);
  const double seek = std::log2(n) + 1.0;
  const double per_entity = std::max(n / entities, 1.0);
  // The attribute's records and distinct values: its own statistics, or the graph's averages.
  const double a_records = attribute ? static_cast<double>(attribute->records) : n / attributes;
  const double a_values = attribute ? static_cast<double>(attribute->values)
                                    : std::min(std::max(n / attributes, 1.0), entities);

  ScanPlan best;
  best.index = ScanIndex::Full;
  best.rows = n;
  best.cost = n * 1.1 + seek;
  bool chosen = false;  // Narrowest: the first candidate is taken
  auto consider = [&](ScanIndex index, ScanShape use, double rows, double seeks) {
    rows = std::max(rows, 1.0);
    const double cost = seeks * seek + rows;
    if (chosen) return;
    if (choice == ScanChoice::Narrowest || cost < best.cost) best = ScanPlan{index, use, rows, cost, 0};
    chosen = choice == ScanChoice::Narrowest;
  };
  if (fixed.e) {
    ScanShape use;
    use.e = true;
    double rows = per_entity;
    if (fixed.a) {
      use.a = true;
      rows = per_entity / 4.0;
      if (fixed.v) {
        use.v = true;
        rows = 1.0;
      }
    }
    consider(ScanIndex::Eavt, use, rows, 1.0);
  }
  if (fixed.a) {
    ScanShape use;
    use.a = true;
    if (fixed.v) {
      use.v = true;
      consider(ScanIndex::Avet, use, a_records / std::max(a_values, 1.0), 1.0);
    } else if (fixed.v_range) {
      use.v_range = true;
      consider(ScanIndex::Avet, use, a_records / 3.0, 2.0);
    }
    ScanShape attribute_only;
    attribute_only.a = true;
    attribute_only.value_order = fixed.value_order;
    consider(fixed.value_order ? ScanIndex::Avet : ScanIndex::Aevt, attribute_only, a_records, 1.0);
  }
  if (fixed.v && fixed.v_is_ref) {
    ScanShape use;
    use.v = use.v_is_ref = true;
    consider(ScanIndex::Vaet, use, per_entity, 1.0);
  }
  // What matches: the estimate of the most selective fixed part, whichever index reads it.
  if (fixed.e) {
    best.matches = !fixed.a ? per_entity : fixed.v ? 1.0 : per_entity / 4.0;
  } else if (fixed.a) {
    best.matches = fixed.v ? a_records / std::max(a_values, 1.0) : fixed.v_range ? a_records / 3.0 : a_records;
  } else if (fixed.v && fixed.v_is_ref) {
    best.matches = per_entity;
  } else {
    best.matches = n;
  }
  best.matches = std::max(best.matches, 1.0);
  return best;
}

void scan_key_ranges(const ScanPlan& plan, const ScanKeys& keys, std::vector<KeyRange>* ranges) {
  std::vector<KeyRange>& out = *ranges;
  // The ranges are written over in place: their strings keep their room from call to call (a
  // point query or a closure walk starts a scan per lookup).
  std::size_t used = 0;
  const auto next_from = [&]() -> std::string& {
    if (used == out.size()) out.emplace_back();
    KeyRange& r = out[used++];
    r.from.clear();
    r.to.clear();
    return r.from;
  };
  const auto to_whole_prefix = [&] {  // the last range: every key that starts with its from
    KeyRange& r = out[used - 1];
    r.to = r.from;
    advance_to_successor(r.to);
  };
  const ScanShape& use = plan.use;
  switch (plan.index) {
    case ScanIndex::Full:
      next_from();
      break;
    case ScanIndex::Eavt:
      if (!use.a || !use.v) {
        std::string& p = next_from();
        put_ordered_int(p, *keys.e);
        if (use.a) put_ordered_int(p, *keys.a);
        to_whole_prefix();
        break;
      }
      for (const Value& value : keys.values) {
        std::string& p = next_from();
        put_ordered_int(p, *keys.e);
        put_ordered_int(p, *keys.a);
        encode_value(p, value);
        to_whole_prefix();
      }
      break;
    case ScanIndex::Aevt:
      put_ordered_int(next_from(), *keys.a);
      to_whole_prefix();
      break;
    case ScanIndex::Avet:
      if (use.v) {
        for (const Value& value : keys.values) {
          std::string& p = next_from();
          put_ordered_int(p, *keys.a);
          encode_value(p, value);
          to_whole_prefix();
        }
      } else if (use.v_range) {
        for (const KeyRange& r : keys.value_ranges) {
          if (!(r.from < r.to)) continue;
          std::string& p = next_from();
          put_ordered_int(p, *keys.a);
          KeyRange& range = out[used - 1];
          range.to = p;
          p += r.from;
          range.to += r.to;
        }
      } else {
        put_ordered_int(next_from(), *keys.a);
        to_whole_prefix();
      }
      break;
    case ScanIndex::Vaet:
      for (const Value& value : keys.values) {
        if (!value.is(ValueKind::Ref)) continue;
        put_ordered_int(next_from(), value.as_ref());
        to_whole_prefix();
      }
      break;
  }
  out.resize(used);
}

KeyRange value_key_range(const ValueRange& range) {
  KeyRange out;
  encode_value(out.from, range.low);
  encode_value(out.to, range.high);
  out.to = prefix_successor(out.to);
  return out;
}

}  // namespace datalog::store
