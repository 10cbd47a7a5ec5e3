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

namespace {

std::string id_bytes(EntityId id) {
  std::string s;
  put_ordered_int(s, id);
  return s;
}

void add_prefix(std::vector<KeyRange>& out, std::string prefix) {
  std::string end = prefix_successor(prefix);
  out.push_back(KeyRange{std::move(prefix), std::move(end)});
}

}  // namespace

void scan_key_ranges(const ScanPlan& plan, const ScanKeys& keys, std::vector<KeyRange>* ranges) {
  std::vector<KeyRange>& out = *ranges;
  out.clear();
  out.reserve(std::max<std::size_t>({1, keys.values.size(), keys.value_ranges.size()}));
  const ScanShape& use = plan.use;
  switch (plan.index) {
    case ScanIndex::Full:
      out.push_back(KeyRange{});
      break;
    case ScanIndex::Eavt: {
      std::string prefix = id_bytes(*keys.e);
      if (!use.a) {
        add_prefix(out, std::move(prefix));
      } else if (!use.v) {
        add_prefix(out, prefix + id_bytes(*keys.a));
      } else {
        for (const Value& value : keys.values) {
          std::string p = prefix + id_bytes(*keys.a);
          encode_value(p, value);
          add_prefix(out, std::move(p));
        }
      }
      break;
    }
    case ScanIndex::Aevt:
      add_prefix(out, id_bytes(*keys.a));
      break;
    case ScanIndex::Avet: {
      const std::string prefix = id_bytes(*keys.a);
      if (use.v) {
        for (const Value& value : keys.values) {
          std::string p = prefix;
          encode_value(p, value);
          add_prefix(out, std::move(p));
        }
      } else if (use.v_range) {
        for (const KeyRange& r : keys.value_ranges) {
          if (!(r.from < r.to)) continue;
          out.push_back(KeyRange{prefix + r.from, prefix + r.to});
        }
      } else {
        add_prefix(out, prefix);
      }
      break;
    }
    case ScanIndex::Vaet:
      for (const Value& value : keys.values) {
        if (value.is(ValueKind::Ref)) add_prefix(out, id_bytes(value.as_ref()));
      }
      break;
  }
}

KeyRange value_key_range(const ValueRange& range) {
  KeyRange out;
  encode_value(out.from, range.low);
  encode_value(out.to, range.high);
  out.to = prefix_successor(out.to);
  return out;
}

}  // namespace datalog::store
