#include "extension/store_vtab.h"

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
#include "extension/table_arguments.h"
#include "lmdb_store/graph_access.h"
#include "lmdb_store/read_view.h"
#include "lmdb_store/scan_plan.h"

namespace datalog::ext {

namespace {

using store::Status;
using store::StatusCode;

enum Column : int {
  kE = 0,
  kA,
  kV,
  kVtype,
  kTx,
  kTxTime,
  kValidFrom,
  kValidTo,
  kAsOf,
  kValidAt,
  kDatom,
  kColumnCount
};

constexpr const char* kSchema =
    "CREATE TABLE x(e, a, v, vtype TEXT, tx INTEGER, tx_time TEXT, valid_from TEXT, "
    "valid_to TEXT, as_of HIDDEN, valid_at HIDDEN, datom BLOB HIDDEN PRIMARY KEY) WITHOUT ROWID";

struct StoreTable : sqlite3_vtab {
  ConnectionContext* context = nullptr;
  std::shared_ptr<GraphSession> session;
  std::string qualified_name;  // schema.table, for temporary graphs
  std::string schema, name;
  std::chrono::milliseconds busy_timeout{5000};
  ConnectionContext::TableLimits limits;
};

// A small cache of entity names for one read view.
class NameCache {
 public:
  void reset(const store::ReadView& reader) {
    reader_ = reader;
    names_.clear();
  }
  Status name_of(EntityId id, std::optional<Value>* out) {
    auto it = names_.find(id);
    if (it != names_.end()) {
      *out = it->second;
      return Status::OK();
    }
    Status st = reader_.ident_name(id, out);
    if (st.ok() && names_.size() < kMaxCached) names_.emplace(id, *out);
    return st;
  }

 private:
  static constexpr std::size_t kMaxCached = 4096;
  store::ReadView reader_;
  std::unordered_map<EntityId, std::optional<Value>> names_;
};

struct StoreCursor : sqlite3_vtab_cursor {
  StoreTable* table() const { return static_cast<StoreTable*>(pVtab); }

  // Where rows are read from: the session's write transaction, or a shared snapshot.
  std::shared_ptr<store::ReadSnapshot> snapshot;
  std::uint64_t visible_tx = UINT64_MAX;  // reads of a snapshot are as of this (prepare_read)
  bool via_writer = false;
  store::ReadView reader;
  std::uint64_t writer_generation = 0;

  store::ScanIndex index = store::ScanIndex::Full;
  std::vector<store::KeyRange> ranges;
  std::size_t range_pos = 0;
  store::DatomScan scan;
  store::TimeView view;
  bool eof = true;
  sqlite3_value* as_of_arg = nullptr;
  sqlite3_value* valid_at_arg = nullptr;
  NameCache names;
  std::unordered_map<std::uint64_t, std::int64_t> tx_times;

  ~StoreCursor() {
    sqlite3_value_free(as_of_arg);
    sqlite3_value_free(valid_at_arg);
  }
};

IdentNamer namer(StoreCursor* c) {
  return [c](EntityId id, std::optional<Value>* out) { return c->names.name_of(id, out); };
}

IdentResolver lookup_in(const store::ReadView& reader) {
  return [reader](const Value& name, std::optional<EntityId>* out) { return reader.lookup_ident(name, out); };
}

// A cursor over a committed snapshot reads ahead; one over the session's write transaction
// reads fact by fact, so it sees the rows the statement writes ahead of it.
store::DatomScan::ReadAhead read_ahead(StoreCursor* c) {
  return c->via_writer ? store::DatomScan::ReadAhead::Live : store::DatomScan::ReadAhead::Snapshot;
}

// --- connecting ------------------------------------------------------------------------------

// Whether an existing index was made for the database file at `database` (its owner records
// that file's identity).
bool made_for(const std::shared_ptr<store::GraphEnv>& env, const std::string& database) {
  std::unique_ptr<store::ReadSnapshot> snapshot;
  store::IndexOwner owner;
  if (!store::ReadSnapshot::begin(env, &snapshot).ok() || !snapshot->owner(&owner).ok()) return false;
  return !owner.file.empty() && owner.file == file_identity(database);
}

// creating: CREATE VIRTUAL TABLE (xCreate), the only way to make a new graph file. Connecting
// to a table of an existing schema (xConnect, also run by PRAGMA table_info or .schema on a
// database from elsewhere) opens an existing graph or fails.
int store_connect_common(sqlite3* db, void* aux, int argc, const char* const* argv,
                         sqlite3_vtab** out, char** err, bool creating) {
  auto* context = static_cast<ConnectionContext*>(aux);
  const std::string schema = argv[1], name = argv[2];
  StoreTableOptions options;
  std::string error;
  if (!parse_store_arguments(db, argv[1], argv[2], argc - 3, argv + 3, context->any_graph_path(),
                             &options, &error)) {
    *err = sqlite3_mprintf("datalog: %s", error.c_str());
    return SQLITE_ERROR;
  }
  const std::string qualified = fmt::format("{}.{}", schema, name);
  const char* database_file = sqlite3_db_filename(db, schema.c_str());
  const std::string database = database_file ? database_file : "";
  const std::string derived = database.empty() ? std::string() : index_path_beside(database, name);
  store::OpenOptions open_options;
  open_options.initial_map_bytes = options.map_bytes;
  // The index at the derived path holds nothing the log does not: it may be made at any time.
  // A file the schema names is only made by CREATE VIRTUAL TABLE.
  open_options.create = creating || (!options.path.empty() && options.path == derived);
  std::shared_ptr<store::GraphEnv> env;
  Status st;
  bool private_index = false;
  if (options.path.empty()) {
    // A database without a file gets a private temporary index, kept for the connection's life.
    private_index = true;
    options.path = context->temp_graph_path(qualified);
    if (options.path.empty()) {
      std::string folder;
      options.path = make_temp_graph_file(&folder);
      if (options.path.empty()) {
        *err = sqlite3_mprintf("datalog: cannot create a temporary graph in %s", folder.c_str());
        return SQLITE_CANTOPEN;
      }
    }
    open_options.delete_on_close = true;
    open_options.create = true;  // private and empty by nature: no file a schema could name
    st = store::GraphEnv::open(options.path, open_options, &env);
    if (st.ok()) context->keep_temp_graph(qualified, env);
  } else {
    const bool existed = ::access(options.path.c_str(), F_OK) == 0;
    st = store::GraphEnv::open(options.path, open_options, &env);
    const bool unusable = st.code() == StatusCode::Corrupt || st.code() == StatusCode::NotAGraph;
    if (options.path == derived && (unusable || (st.ok() && existed && !made_for(env, database)))) {
      // The index at the derived path holds nothing the log does not: a damaged one (truncated,
      // not LMDB), or one not made for this very database file (it came with a copy, or from
      // someone else: LMDB would read its pages without checks), is removed and made again.
      env.reset();
      for (const char* suffix : {"", "-lock", "-sync"}) ::unlink((options.path + suffix).c_str());
      open_options.create = true;
      st = store::GraphEnv::open(options.path, open_options, &env);
    }
  }
  if (!st.ok()) {
    const char* hint = !creating && (st.code() == StatusCode::CantOpen || st.code() == StatusCode::NotAGraph)
                           ? " (table %s: only CREATE VIRTUAL TABLE makes a new graph)"
                           : "";
    *err = sqlite3_mprintf(("datalog: %s" + std::string(hint)).c_str(), st.message().c_str(),
                           qualified.c_str());
    return sqlite_code(st);
  }
  if (creating) {
    st = GraphLog::create(db, schema, name);
    if (!st.ok()) {
      *err = sqlite3_mprintf("datalog: %s (table %s)", st.message().c_str(), qualified.c_str());
      return sqlite_code(st);
    }
  }
  int rc = sqlite3_declare_vtab(db, kSchema);
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  auto table = std::make_unique<StoreTable>();
  std::memset(static_cast<sqlite3_vtab*>(table.get()), 0, sizeof(sqlite3_vtab));
  table->context = context;
  table->session = context->session_for(env, options.busy_timeout);
  GraphSession& session = *table->session;
  if (!session.log()) {
    session.attach_log(std::make_unique<GraphLog>(db, schema, name));
    session.set_paths(private_index ? std::string() : database, derived);
  } else if (sqlite3_stricmp(session.log()->schema().c_str(), schema.c_str()) != 0 ||
             sqlite3_stricmp(session.log()->table().c_str(), name.c_str()) != 0) {
    *err = sqlite3_mprintf("datalog: graph '%s' is already the index of table %s.%s; a graph belongs "
                           "to one table",
                           env->path().c_str(), session.log()->schema().c_str(),
                           session.log()->table().c_str());
    return SQLITE_ERROR;
  }
  if (creating) {
    // A new table claims its index now, so a file of another database fails the CREATE itself.
    st = session.check_log_and_owner();
    if (!st.ok()) {
      *err = sqlite3_mprintf("datalog: %s", st.message().c_str());
      return sqlite_code(st);
    }
  }
  table->qualified_name = qualified;
  table->busy_timeout = options.busy_timeout;
  table->schema = schema;
  table->name = name;
  table->limits = {options.max_results, options.max_derived_facts, options.max_memory_mb};
  context->register_table(table->schema, table->name, table.get(), table->session, table->limits);
  *out = table.release();
  return SQLITE_OK;
}

int store_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                 char** err) {
  return guarded(nullptr, [&] { return store_connect_common(db, aux, argc, argv, out, err, true); });
}

int store_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                  char** err) {
  return guarded(nullptr, [&] { return store_connect_common(db, aux, argc, argv, out, err, false); });
}

int store_disconnect(sqlite3_vtab* vtab) {
  auto* table = static_cast<StoreTable*>(vtab);
  table->context->unregister_table(table->schema, table->name, table);
  delete table;
  return SQLITE_OK;
}

// DROP TABLE: the log goes with the table, and so does an index at the derived path (a file the
// application named is left alone).
int store_destroy(sqlite3_vtab* vtab) {
  auto* table = static_cast<StoreTable*>(vtab);
  return guarded(vtab, [&] {
    const Status st = GraphLog::destroy(table->context->db(), table->schema, table->name);
    if (!st.ok()) return report(vtab, st);
    const std::string database = table->session->database_path();
    const std::string index = table->session->env().path();
    const bool derived = !database.empty() && index == index_path_beside(database, table->name);
    table->context->forget_temp_graph(table->qualified_name);
    table->context->unregister_table(table->schema, table->name, table);
    delete table;
    if (derived) {
      for (const char* suffix : {"", "-lock", "-sync"}) ::unlink((index + suffix).c_str());
    }
    return SQLITE_OK;
  });
}

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
    c->ranges = store::scan_key_ranges(plan, keys);
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
        const std::string_view name = kind_name(d.v.kind());
        sqlite3_result_text(ctx, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
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

// --- writing ---------------------------------------------------------------------------------

Status writer_of(StoreTable* table, store::WriteTxn** out) {
  DATALOG_RETURN_IF_ERROR(table->session->begin_write(table->busy_timeout));
  *out = table->session->writer();
  return Status::OK();
}

// Decodes the `datom` key of a row (from xColumn) back into its fact.
Status fact_of_key(store::WriteTxn& w, sqlite3_value* key, store::Datom* out) {
  if (sqlite3_value_type(key) != SQLITE_BLOB) {
    return Status(StatusCode::InvalidArgument, "the datom column identifies a row; it is read-only");
  }
  const std::string_view bytes(static_cast<const char*>(sqlite3_value_blob(key)),
                               static_cast<std::size_t>(sqlite3_value_bytes(key)));
  return store::fact_of_row_key(w, bytes, out);
}

Status insert_row(StoreTable* table, store::WriteTxn& w, sqlite3_value** col, std::string* error) {
  const IdentResolver create = [&w](const Value& name, std::optional<EntityId>* out) {
    EntityId id = 0;
    Status st = w.resolve_ident(name, &id);
    if (st.ok()) *out = id;
    return st;
  };
  std::optional<EntityId> e;
  if (sqlite3_value_type(col[kE]) == SQLITE_NULL) {
    *error = "e (the entity) is required";
    return Status::OK();
  }
  DATALOG_RETURN_IF_ERROR(entity_from_sql(col[kE], create, &e, error));
  if (!e) {
    *error = "e: " + *error;
    return Status::OK();
  }
  if (sqlite3_value_type(col[kE]) != SQLITE_TEXT && !is_application_entity_id(*e)) {
    *error = fmt::format("e: integer entity ids must be below {} (2^52); larger ids belong to idents",
                         kFirstIdentEntityId);
    return Status::OK();
  }
  // The whole text, NUL bytes included: a keyword holds none, and cutting it short would store
  // another attribute than the one given.
  const bool a_is_null = sqlite3_value_type(col[kA]) == SQLITE_NULL;
  const std::string a_text(text_of(col[kA]));
  if (sqlite3_value_type(col[kA]) != SQLITE_TEXT || !is_keyword_text(a_text)) {
    std::string shown = a_text;
    for (auto at = shown.find('\0'); at != std::string::npos; at = shown.find('\0')) shown.replace(at, 1, "\\0");
    *error = fmt::format("attribute must be a keyword (':name'), got {}",
                         a_is_null ? std::string("NULL") : fmt::format("'{}'", shown));
    return Status::OK();
  }
  EntityId a = 0;
  DATALOG_RETURN_IF_ERROR(w.resolve_ident(Value::keyword(a_text), &a));
  Converted v = value_from_sql(col[kV], col[kVtype], create);
  if (!v.value) {
    *error = "v: " + v.error;
    return Status::OK();
  }
  std::int64_t valid_from = w.tx_time_ms(), valid_to = store::kForever;
  if (sqlite3_value_type(col[kValidFrom]) != SQLITE_NULL) {
    Converted t = instant_from_sql(col[kValidFrom], "valid_from");
    if (!t.value) {
      *error = t.error;
      return Status::OK();
    }
    valid_from = t.value->as_instant();
  }
  if (sqlite3_value_type(col[kValidTo]) != SQLITE_NULL) {
    Converted t = instant_from_sql(col[kValidTo], "valid_to");
    if (!t.value) {
      *error = t.error;
      return Status::OK();
    }
    valid_to = t.value->as_instant();
  }
  // The graph's schema applies here as in (transact ...): the same engine code enforces it.
  std::optional<Schema>& schema = table->session->schema_cache();
  store::GraphAccess access(table->session->env(), w);
  if (!schema) {
    Schema loaded;
    DATALOG_RETURN_IF_ERROR(Schema::load(access, &loaded));
    schema = std::move(loaded);
  }
  SchemaWriter writer(access, *schema);
  const Status st = writer.assert_fact(*e, a, Value::keyword(a_text), *v.value, valid_from, valid_to);
  if (st.code() == StatusCode::InvalidArgument) {
    *error = st.message();
    return Status::OK();
  }
  return st;
}

int store_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64*) {
  auto* table = static_cast<StoreTable*>(vtab);
  return guarded(vtab, [&] {
    store::WriteTxn* w = nullptr;
    Status st = writer_of(table, &w);
    if (!st.ok()) return report(vtab, st);
    const bool deleting = sqlite3_value_type(argv[0]) != SQLITE_NULL;
    if (deleting) {
      store::Datom old;
      st = fact_of_key(*w, argv[0], &old);
      if (st.ok() && argc > 1) {
        // tx, tx_time and datom are the graph's: an UPDATE may not change them.
        const bool tx_changed = sqlite3_value_type(argv[2 + kTx]) != SQLITE_INTEGER ||
                                sqlite3_value_int64(argv[2 + kTx]) != static_cast<sqlite3_int64>(old.tx);
        const bool key_changed = sqlite3_value_bytes(argv[0]) != sqlite3_value_bytes(argv[1]) ||
                                 std::memcmp(sqlite3_value_blob(argv[0]), sqlite3_value_blob(argv[1]),
                                             static_cast<std::size_t>(sqlite3_value_bytes(argv[0]))) != 0;
        if (tx_changed || key_changed) {
          set_vtab_error(vtab, "tx, tx_time and datom are assigned by the graph; UPDATE may change "
                               "e, a, v, vtype, valid_from and valid_to");
          return SQLITE_ERROR;
        }
      }
      if (st.ok()) st = w->retract_fact(old.e, old.a, old.v);
      table->session->forget_schema();  // it may have retracted a schema fact
      if (!st.ok()) return report(vtab, st);
    }
    if (argc == 1) return SQLITE_OK;
    if (!deleting) {
      // An INSERT may not give what the graph assigns, nor the read-only query arguments: such a
      // value would be dropped without a word.
      const bool assigned = sqlite3_value_type(argv[1]) != SQLITE_NULL ||
                            sqlite3_value_type(argv[2 + kDatom]) != SQLITE_NULL ||
                            sqlite3_value_type(argv[2 + kTx]) != SQLITE_NULL ||
                            sqlite3_value_type(argv[2 + kTxTime]) != SQLITE_NULL;
      const bool arguments = sqlite3_value_type(argv[2 + kAsOf]) != SQLITE_NULL ||
                             sqlite3_value_type(argv[2 + kValidAt]) != SQLITE_NULL;
      if (assigned || arguments) {
        set_vtab_error(vtab, assigned ? "tx, tx_time and datom are assigned by the graph; INSERT may set "
                                        "e, a, v, vtype, valid_from and valid_to"
                                      : "as_of and valid_at are arguments of a query, not columns to "
                                        "INSERT; INSERT may set e, a, v, vtype, valid_from and valid_to");
        return SQLITE_ERROR;
      }
    }
    std::string error;
    st = insert_row(table, *w, argv + 2, &error);
    if (!st.ok()) return report(vtab, st);
    if (!error.empty()) {
      set_vtab_error(vtab, error);
      return SQLITE_ERROR;
    }
    return SQLITE_OK;
  });
}

// --- transactions ----------------------------------------------------------------------------

int store_begin(sqlite3_vtab* vtab) {
  auto* table = static_cast<StoreTable*>(vtab);
  return guarded(vtab, [&] { return report(vtab, table->session->begin_write(table->busy_timeout)); });
}
int store_sync(sqlite3_vtab* vtab) {
  // The log rows go into the SQL transaction, which SQLite commits right after.
  return guarded(vtab, [&] { return report(vtab, static_cast<StoreTable*>(vtab)->session->flush_log()); });
}
int store_commit(sqlite3_vtab* vtab) {
  // SQLite has committed the log; the index follows (a failure leaves it behind, caught up later).
  return guarded(vtab, [&] {
    static_cast<StoreTable*>(vtab)->session->commit();
    return SQLITE_OK;
  });
}
int store_rollback(sqlite3_vtab* vtab) {
  return guarded(vtab, [&] {
    static_cast<StoreTable*>(vtab)->session->rollback();
    return SQLITE_OK;
  });
}
int store_savepoint(sqlite3_vtab* vtab, int level) {
  return guarded(vtab, [&] { return report(vtab, static_cast<StoreTable*>(vtab)->session->savepoint(level)); });
}
int store_release(sqlite3_vtab* vtab, int level) {
  return guarded(vtab, [&] { return report(vtab, static_cast<StoreTable*>(vtab)->session->release(level)); });
}
int store_rollback_to(sqlite3_vtab* vtab, int level) {
  return guarded(vtab, [&] { return report(vtab, static_cast<StoreTable*>(vtab)->session->rollback_to(level)); });
}

void rename_registration(StoreTable* table, const char* new_name) {
  table->context->unregister_table(table->schema, table->name, table);
  table->name = new_name;
  table->qualified_name = fmt::format("{}.{}", table->schema, table->name);
  table->context->register_table(table->schema, table->name, table, table->session, table->limits);
}

// The index at the path derived from the table's name moves with it (else the renamed table
// would rebuild it at its new path, and leave the old file behind).
void rename_derived_index(StoreTable* table, const char* new_name) {
  const std::string database = table->session->database_path();
  if (database.empty() || table->session->env().path() != index_path_beside(database, table->name)) return;
  const std::string to = index_path_beside(database, new_name);
  if (::access(to.c_str(), F_OK) == 0) return;  // never over another file: rebuilt instead
  if (::rename(table->session->env().path().c_str(), to.c_str()) == 0) {
    for (const char* suffix : {"-lock", "-sync"}) {
      ::rename((table->session->env().path() + suffix).c_str(), (to + suffix).c_str());
    }
  }
}

int store_rename(sqlite3_vtab* vtab, const char* new_name) {
  auto* table = static_cast<StoreTable*>(vtab);
  return guarded(vtab, [&] {
    const Status st = GraphLog::rename(table->context->db(), table->schema, table->name, new_name);
    if (!st.ok()) return report(vtab, st);
    GraphSession& session = *table->session;
    if (session.log()) session.log()->renamed(new_name);
    rename_derived_index(table, new_name);
    rename_registration(table, new_name);
    return SQLITE_OK;
  });
}

int store_shadow_name(const char* suffix) { return GraphLog::is_shadow_suffix(suffix) ? 1 : 0; }


sqlite3_module make_module() {
  sqlite3_module m{};
  m.iVersion = 3;  // savepoints, shadow tables
  m.xCreate = store_create;
  m.xConnect = store_connect;
  m.xBestIndex = store_best_index;
  m.xDisconnect = store_disconnect;
  m.xDestroy = store_destroy;
  m.xOpen = store_open;
  m.xClose = store_close;
  m.xFilter = store_filter;
  m.xNext = store_next;
  m.xEof = store_eof;
  m.xColumn = store_column;
  m.xUpdate = store_update;
  m.xBegin = store_begin;
  m.xSync = store_sync;
  m.xCommit = store_commit;
  m.xRollback = store_rollback;
  m.xRename = store_rename;
  m.xSavepoint = store_savepoint;
  m.xRelease = store_release;
  m.xRollbackTo = store_rollback_to;
  m.xShadowName = store_shadow_name;
  return m;
}

const sqlite3_module kStoreModule = make_module();

}  // namespace

int register_store_module(sqlite3* db, void* context, void (*destroy)(void*)) {
  return sqlite3_create_module_v2(db, "datalog", &kStoreModule, context, destroy);
}

}  // namespace datalog::ext
