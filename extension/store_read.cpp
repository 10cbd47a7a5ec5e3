// extension/store_read.cpp: the store table read: xBestIndex (store_plan.h chooses) and a cursor
// over the session's write transaction or a shared snapshot.
#include "extension/store_table.h"

#include <unistd.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "engine/schema_writer.h"
#include "engine/time_text.h"
#include "extension/connection_context.h"
#include "extension/errors.h"
#include "extension/graph_log.h"
#include "extension/index_path.h"
#include "extension/graph_session.h"
#include "extension/sql_values.h"
#include "extension/store_plan.h"
#include "extension/terminated_text.h"
#include "extension/table_arguments.h"
#include "lmdb_store/graph_access.h"
#include "lmdb_store/read_view.h"
#include "lmdb_store/scan_plan.h"

namespace datalog::ext::store_table {

// --- planning --------------------------------------------------------------------------------

int store_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  auto* table = static_cast<StoreTable*>(vtab);
  return guarded(vtab, [&] {
    UsableConstraints usable;
    int e = -1, a = -1, v = -1, vtype = -1, lower = -1, upper = -1, as_of = -1, valid_at = -1;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      const bool eq = c.op == SQLITE_INDEX_CONSTRAINT_EQ;
      if (c.iColumn == kAsOf || c.iColumn == kValidAt) {
        // A time-travel argument that is not usable yet: ask for a plan where it is.
        if (eq && !c.usable) return SQLITE_CONSTRAINT;
        if (eq) (c.iColumn == kAsOf ? as_of : valid_at) = i;
        continue;
      }
      if (!c.usable) continue;
      // Our key order is BINARY: a constraint under another collation is left to SQLite.
      const char* collation = sqlite3_vtab_collation(info, i);
      if (collation && sqlite3_stricmp(collation, "BINARY") != 0) continue;
      if (eq && c.iColumn == kE) e = i;
      if (eq && c.iColumn == kA) a = i;
      if (eq && c.iColumn == kV) v = i;
      if (eq && c.iColumn == kVtype) vtype = i;
      if (c.iColumn == kV && (c.op == SQLITE_INDEX_CONSTRAINT_GT || c.op == SQLITE_INDEX_CONSTRAINT_GE)) lower = i;
      if (c.iColumn == kV && (c.op == SQLITE_INDEX_CONSTRAINT_LT || c.op == SQLITE_INDEX_CONSTRAINT_LE)) upper = i;
    }
    usable.e = e >= 0;
    usable.a = a >= 0;
    usable.v = v >= 0;
    usable.vtype = vtype >= 0;
    usable.lower = lower >= 0;
    usable.upper = upper >= 0;
    const StorePlan plan = choose_store_plan(usable, table->session->stats());
    std::string codes;
    int next_arg = 1;
    auto use = [&](int constraint, char code, bool omit) {
      if (constraint < 0) return;
      info->aConstraintUsage[constraint].argvIndex = next_arg++;
      info->aConstraintUsage[constraint].omit = omit ? 1 : 0;
      codes += code;
    };
    if (plan.use.e) use(e, 'e', false);
    if (plan.use.a) use(a, 'a', false);
    if (plan.use.v) use(v, 'v', false);
    if (plan.use.vtype) use(vtype, 't', false);
    if (plan.use.lower) use(lower, '>', false);
    if (plan.use.upper) use(upper, '<', false);
    use(as_of, 'o', true);
    use(valid_at, 'w', true);
    const std::string idx = fmt::format("{} {}", store::scan_index_name(plan.scan.index), codes);
    info->idxNum = static_cast<int>(plan.scan.index);
    info->idxStr = sqlite3_mprintf("%s", idx.c_str());
    if (!info->idxStr) return SQLITE_NOMEM;
    info->needToFreeIdxStr = 1;
    info->estimatedCost = plan.scan.cost;
    info->estimatedRows = static_cast<sqlite3_int64>(plan.scan.rows);
    // Never SQLITE_INDEX_SCAN_UNIQUE: even (e, a, v) can show one row per valid-time window.
    return SQLITE_OK;
  });
}

// --- reading ---------------------------------------------------------------------------------

int store_open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  auto* cursor = new (std::nothrow) StoreCursor();
  if (!cursor) return SQLITE_NOMEM;
  *out = cursor;
  return SQLITE_OK;
}

int store_close(sqlite3_vtab_cursor* cur) {
  delete static_cast<StoreCursor*>(cur);
  return SQLITE_OK;
}

// Points the cursor at the transaction it must read now, re-seeking its scan when that changed.
Status attach_reader(StoreCursor* c, bool reposition) {
  GraphSession& session = *c->table()->session;
  store::WriteTxn* writer = session.writer();
  if (writer && !writer->failure().ok()) return writer->failure();
  if (writer && writer->open()) {
    const store::ReadView current(*writer);
    if (c->via_writer && c->reader.same_transaction(current) &&
        c->writer_generation == writer->generation()) {
      return Status::OK();
    }
    c->snapshot.reset();
    c->via_writer = true;
    c->reader = current;
    c->writer_generation = writer->generation();
  } else {
    if (!c->via_writer && c->snapshot) return Status::OK();
    c->via_writer = false;
    GraphSession::Visible visible;
    DATALOG_RETURN_IF_ERROR(session.prepare_read(&visible, &c->snapshot));
    c->visible_tx = visible.tx;
    if (!c->snapshot) DATALOG_RETURN_IF_ERROR(session.share_snapshot(&c->snapshot));
    c->reader = store::ReadView(*c->snapshot);
  }
  c->names.reset(c->reader);
  c->tx_times.clear();
  if (reposition) return c->reader.reposition(c->scan);
  return Status::OK();
}

void stop_reading(StoreCursor* c) {
  c->scan.close();
  c->snapshot.reset();  // lets the snapshot end, so it never pins old pages
  c->via_writer = false;
  c->reader = store::ReadView();
  c->eof = true;
}

// Moves to the next range with a visible datom, or sets eof.
Status settle(StoreCursor* c) {
  while (c->scan.at_end()) {
    if (++c->range_pos >= c->ranges.size()) {
      stop_reading(c);
      return Status::OK();
    }
    DATALOG_RETURN_IF_ERROR(c->reader.start_scan(c->scan, c->index, c->ranges[c->range_pos], c->view,
                                                 read_ahead(c)));
  }
  return Status::OK();
}

Status read_time_view(StoreCursor* c, store::TimeView* view, std::string* error) {
  view->valid_at = now_ms();
  if (c->as_of_arg) {
    sqlite3_value* v = c->as_of_arg;
    if (sqlite3_value_type(v) == SQLITE_INTEGER) {
      if (sqlite3_value_int64(v) < 0) {
        *error = ":as-of counter must be non-negative";
        return Status::OK();
      }
      view->as_of = static_cast<std::uint64_t>(sqlite3_value_int64(v));
    } else if (sqlite3_value_type(v) == SQLITE_TEXT) {
      Converted t = instant_from_sql(v, "as_of");
      if (!t.value) {
        *error = t.error;
        return Status::OK();
      }
      DATALOG_RETURN_IF_ERROR(c->reader.tx_as_of_time(t.value->as_instant(), &view->as_of));
    } else if (sqlite3_value_type(v) != SQLITE_NULL) {
      *error = "as_of must be a transaction counter (INTEGER) or an ISO 8601 UTC time (TEXT)";
      return Status::OK();
    }
  }
  if (c->valid_at_arg && sqlite3_value_type(c->valid_at_arg) != SQLITE_NULL) {
    sqlite3_value* v = c->valid_at_arg;
    const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(v));
    if (sqlite3_value_type(v) == SQLITE_TEXT &&
        (std::strcmp(text, "any") == 0 || std::strcmp(text, ":any-valid-time") == 0)) {
      view->any_valid_time = true;
    } else {
      Converted t = instant_from_sql(v, "valid_at");
      if (!t.value) {
        *error = t.error + " (or 'any' for every valid time)";
        return Status::OK();
      }
      view->valid_at = t.value->as_instant();
    }
  }
  return Status::OK();
}

int store_filter(sqlite3_vtab_cursor* cur, int idx_num, const char* idx_str, int argc,
                 sqlite3_value** argv) {
  auto* c = static_cast<StoreCursor*>(cur);
  return guarded(cur->pVtab, [&]() -> int {
    stop_reading(c);
    c->ranges.clear();
    c->range_pos = 0;
    sqlite3_value_free(c->as_of_arg);
    sqlite3_value_free(c->valid_at_arg);
    c->as_of_arg = c->valid_at_arg = nullptr;
    sqlite3_value *e = nullptr, *a = nullptr, *v = nullptr, *vtype = nullptr, *lower = nullptr,
                  *upper = nullptr;
    const char* codes = idx_str ? std::strchr(idx_str, ' ') : nullptr;
    for (int i = 0; codes && codes[i + 1] && i < argc; ++i) {
      switch (codes[i + 1]) {
        case 'e': e = argv[i]; break;
        case 'a': a = argv[i]; break;
        case 'v': v = argv[i]; break;
        case 't': vtype = argv[i]; break;
        case '>': lower = argv[i]; break;
        case '<': upper = argv[i]; break;
        case 'o': c->as_of_arg = sqlite3_value_dup(argv[i]); break;
        case 'w': c->valid_at_arg = sqlite3_value_dup(argv[i]); break;
        default: break;
      }
    }
    Status st = attach_reader(c, false);
    if (!st.ok()) return report(cur->pVtab, st);
    std::string error;
    st = read_time_view(c, &c->view, &error);
    if (!st.ok()) return report(cur->pVtab, st);
    if (!error.empty()) {
      set_vtab_error(cur->pVtab, error);
      return SQLITE_ERROR;
    }
    if (!c->via_writer && c->view.as_of > c->visible_tx) c->view.as_of = c->visible_tx;
    const IdentResolver lookup = lookup_in(c->reader);
    store::ScanPlan plan = plan_of_filter(idx_num, codes ? codes + 1 : nullptr);
    std::optional<ValueKind> kind;
    if (vtype) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(vtype));
      kind = text ? kind_from_name(text) : std::nullopt;
      if (!kind) return SQLITE_OK;  // no stored value has that vtype: no rows (cursor at eof)
    }
    if (plan.index == store::ScanIndex::Vaet && kind != ValueKind::Ref) plan = store::ScanPlan{};

    store::ScanKeys keys;
    if (e) {
      st = entity_from_sql(e, lookup, &keys.e, &error);
      if (!st.ok()) return report(cur->pVtab, st);
      if (!keys.e) return SQLITE_OK;  // names no entity: no rows
    }
    if (a) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(a));
      if (sqlite3_value_type(a) != SQLITE_TEXT || !is_keyword_text(text)) return SQLITE_OK;
      st = c->reader.lookup_ident(Value::keyword(text), &keys.a);
      if (!st.ok()) return report(cur->pVtab, st);
      if (!keys.a) return SQLITE_OK;
    }
    if (v) {
      keys.values = equal_candidates(v, kind, lookup);
      if (keys.values.empty()) return SQLITE_OK;
    }
    if (lower || upper) {
      const store::SqlBound low = lower ? sql_bound(lower) : store::SqlBound{};
      const store::SqlBound high = upper ? sql_bound(upper) : store::SqlBound{};
      keys.value_ranges = store::sql_value_ranges(lower ? &low : nullptr, upper ? &high : nullptr);
    }
    c->index = plan.index;
    store::scan_key_ranges(plan, keys, &c->ranges);
    if (c->ranges.empty()) return SQLITE_OK;
    c->eof = false;
    st = c->reader.start_scan(c->scan, c->index, c->ranges[0], c->view, read_ahead(c));
    if (st.ok()) st = settle(c);
    return report(cur->pVtab, st);
  });
}

int store_next(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<StoreCursor*>(cur);
  return guarded(cur->pVtab, [&] {
    Status st = attach_reader(c, true);
    if (st.ok()) st = c->scan.next();
    if (st.ok()) st = settle(c);
    if (!st.ok()) stop_reading(c);
    return report(cur->pVtab, st);
  });
}

int store_eof(sqlite3_vtab_cursor* cur) { return static_cast<StoreCursor*>(cur)->eof ? 1 : 0; }

std::int64_t tx_time_of(StoreCursor* c, std::uint64_t tx) {
  store::WriteTxn* writer = c->table()->session->writer();
  if (c->via_writer && writer && tx == writer->tx()) return writer->tx_time_ms();
  auto it = c->tx_times.find(tx);
  if (it != c->tx_times.end()) return it->second;
  std::optional<std::int64_t> time;
  c->reader.tx_time(tx, &time);
  const std::int64_t ms = time.value_or(0);
  c->tx_times.emplace(tx, ms);
  return ms;
}

int store_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int column) {
  auto* c = static_cast<StoreCursor*>(cur);
  return guarded(cur->pVtab, [&] {
    const store::Datom& d = c->scan.datom();
    switch (column) {
      case kE: result_entity(ctx, d.e, namer(c)); break;
      case kA: result_entity(ctx, d.a, namer(c)); break;
      case kV: result_value(ctx, d.v, namer(c)); break;
      case kVtype: {
        result_terminated_text(ctx, kind_name(d.v.kind()), SQLITE_STATIC);  // a string literal
        break;
      }
      case kTx: sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(d.tx)); break;
      case kTxTime: result_instant(ctx, tx_time_of(c, d.tx)); break;
      case kValidFrom: result_instant(ctx, d.valid_from); break;
      case kValidTo:
        if (d.valid_to == store::kForever) {
          sqlite3_result_null(ctx);
        } else {
          result_instant(ctx, d.valid_to);
        }
        break;
      case kAsOf:
        if (c->as_of_arg) sqlite3_result_value(ctx, c->as_of_arg);
        break;
      case kValidAt:
        if (c->valid_at_arg) sqlite3_result_value(ctx, c->valid_at_arg);
        break;
      case kDatom: {
        const std::string key = store::datom_row_key(d);
        sqlite3_result_blob(ctx, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
        break;
      }
      default: break;
    }
    return SQLITE_OK;
  });
}

}  // namespace datalog::ext::store_table
