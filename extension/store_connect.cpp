// extension/store_connect.cpp: the store table created, connected, renamed and dropped — the
// graph's log tables in the database and its index file beside it.
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

constexpr const char* kSchema =
    "CREATE TABLE x(e, a, v, vtype TEXT, tx INTEGER, tx_time TEXT, valid_from TEXT, "
    "valid_to TEXT, as_of HIDDEN, valid_at HIDDEN, datom BLOB HIDDEN PRIMARY KEY) WITHOUT ROWID";

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
// Opens the table's index, or says in *err why not. A database without a file gets a private
// temporary index, kept for the connection's life. The index at the derived path holds nothing
// the log does not: it may be made at any time, and one that is damaged (truncated, not LMDB)
// or was not made for this very database file (it came with a copy, or from someone else: LMDB
// would read its pages without checks) is removed and made again. A file the schema names is
// only made by CREATE VIRTUAL TABLE.
int open_index(ConnectionContext* context, const std::string& qualified, const std::string& database,
               const std::string& derived, bool creating, StoreTableOptions& options,
               std::shared_ptr<store::GraphEnv>* env, bool* private_index, char** err) {
  store::OpenOptions open_options;
  open_options.initial_map_bytes = options.map_bytes;
  open_options.create = creating || (!options.path.empty() && options.path == derived);
  Status st;
  *private_index = options.path.empty();
  if (*private_index) {
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
    st = store::GraphEnv::open(options.path, open_options, env);
    if (st.ok()) context->keep_temp_graph(qualified, *env);
  } else {
    const bool existed = ::access(options.path.c_str(), F_OK) == 0;
    st = store::GraphEnv::open(options.path, open_options, env);
    const bool unusable = st.code() == StatusCode::Corrupt || st.code() == StatusCode::NotAGraph;
    if (options.path == derived && (unusable || (st.ok() && existed && !made_for(*env, database)))) {
      env->reset();
      for (const char* suffix : {"", "-lock", "-sync"}) ::unlink((options.path + suffix).c_str());
      open_options.create = true;
      st = store::GraphEnv::open(options.path, open_options, env);
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
  return SQLITE_OK;
}

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
  std::shared_ptr<store::GraphEnv> env;
  bool private_index = false;
  int rc = open_index(context, qualified, database, derived, creating, options, &env, &private_index, err);
  if (rc != SQLITE_OK) return rc;
  Status st;
  if (creating) {
    st = GraphLog::create(db, schema, name);
    if (!st.ok()) {
      *err = sqlite3_mprintf("datalog: %s (table %s)", st.message().c_str(), qualified.c_str());
      return sqlite_code(st);
    }
  }
  rc = sqlite3_declare_vtab(db, kSchema);
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

}  // namespace datalog::ext::store_table
