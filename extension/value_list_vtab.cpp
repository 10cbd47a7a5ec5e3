#include "extension/value_list_vtab.h"

#include <cstring>
#include <new>

namespace datalog::ext {

namespace {

enum Column { kValue = 0, kOrd = 1, kList = 2 };

struct ListCursor : sqlite3_vtab_cursor {
  const ValueList* list = nullptr;
  std::size_t position = 0;
};

int list_connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  const int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(value, ord, list HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  auto* table = new (std::nothrow) sqlite3_vtab{};
  if (!table) return SQLITE_NOMEM;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *out = table;
  return SQLITE_OK;
}

int list_disconnect(sqlite3_vtab* vtab) {
  delete vtab;
  return SQLITE_OK;
}

// The only plan: list = ?, rows in list (and so ord) order.
int list_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  bool have_list = false;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn != kList || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c.usable) return SQLITE_CONSTRAINT;
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    have_list = true;
  }
  if (!have_list) return SQLITE_CONSTRAINT;
  info->idxNum = 1;
  info->estimatedCost = 10;
  if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == kOrd && !info->aOrderBy[0].desc) {
    info->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

int list_open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  auto* cursor = new (std::nothrow) ListCursor{};
  if (!cursor) return SQLITE_NOMEM;
  *out = cursor;
  return SQLITE_OK;
}

int list_close(sqlite3_vtab_cursor* cursor) {
  delete static_cast<ListCursor*>(cursor);
  return SQLITE_OK;
}

int list_filter(sqlite3_vtab_cursor* base, int, const char*, int argc, sqlite3_value** argv) {
  auto* cursor = static_cast<ListCursor*>(base);
  cursor->position = 0;
  cursor->list = argc == 1 ? static_cast<const ValueList*>(
                                 sqlite3_value_pointer(argv[0], kValueListPointerType))
                           : nullptr;
  return SQLITE_OK;
}

int list_next(sqlite3_vtab_cursor* base) {
  ++static_cast<ListCursor*>(base)->position;
  return SQLITE_OK;
}

int list_eof(sqlite3_vtab_cursor* base) {
  auto* cursor = static_cast<ListCursor*>(base);
  return !cursor->list || cursor->position >= cursor->list->values.size();
}

int list_column(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int column) {
  auto* cursor = static_cast<ListCursor*>(base);
  switch (column) {
    case kValue:
      try {
        result_value(ctx, cursor->list->values[cursor->position], cursor->list->name_of);
      } catch (const std::bad_alloc&) {
        return SQLITE_NOMEM;
      }
      return SQLITE_OK;
    case kOrd: sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(cursor->position)); return SQLITE_OK;
    default: sqlite3_result_null(ctx); return SQLITE_OK;
  }
}

int list_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(static_cast<ListCursor*>(base)->position);
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.iVersion = 1;
  m.xCreate = nullptr;  // eponymous only
  m.xConnect = list_connect;
  m.xBestIndex = list_best_index;
  m.xDisconnect = list_disconnect;
  m.xDestroy = list_disconnect;
  m.xOpen = list_open;
  m.xClose = list_close;
  m.xFilter = list_filter;
  m.xNext = list_next;
  m.xEof = list_eof;
  m.xColumn = list_column;
  m.xRowid = list_rowid;
  return m;
}

const sqlite3_module kValueListModule = make_module();

}  // namespace

int register_value_list_module(sqlite3* db) {
  return sqlite3_create_module_v2(db, "datalog_values", &kValueListModule, nullptr, nullptr);
}

}  // namespace datalog::ext
