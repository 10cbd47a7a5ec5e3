// extension/store_write.cpp: the store table written (INSERT, DELETE, UPDATE of rows as facts)
// and its part in SQLite's transaction: the log is written in xSync, the index follows in
// xCommit.
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
#include "extension/table_arguments.h"
#include "lmdb_store/graph_access.h"
#include "lmdb_store/read_view.h"
#include "lmdb_store/scan_plan.h"

namespace datalog::ext::store_table {

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
  const Value a_ident = Value::keyword(a_text);
  EntityId a = 0;
  DATALOG_RETURN_IF_ERROR(w.resolve_ident(a_ident, &a));
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
  const Status st = writer.assert_fact(*e, a, a_ident, *v.value, valid_from, valid_to);
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
    if (argc == 1) return report(vtab, table->session->commit_part_if_due(table->context->write_page_bytes()));
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
    return report(vtab, table->session->commit_part_if_due(table->context->write_page_bytes()));
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

}  // namespace datalog::ext::store_table
