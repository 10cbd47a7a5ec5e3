#include "extension/query_vtab.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/analyzer.h"
#include "engine/script_runner.h"
#include "extension/connection_context.h"
#include "extension/errors.h"
#include "extension/parsed_queries.h"
#include "extension/query_arguments.h"
#include "extension/query_results.h"
#include "extension/sql_values.h"
#include "extension/terminated_text.h"

namespace datalog::ext {

namespace {

constexpr int kAdHocColumns = 8;

struct QueryCursor;

// What one declared column is.
struct ColumnRole {
  enum class Kind { Find, InBinding, Slot, Graph, QueryText, AdHocArg, Edn } kind;
  std::size_t index = 0;  // find element, :in binding, slot, or ad hoc argument
  std::string name;       // as declared (named queries)
};

struct QueryTable : sqlite3_vtab {
  ConnectionContext* context = nullptr;
  bool ad_hoc = false;
  std::string graph;        // store table name (named queries)
  std::string query_text;   // named queries
  ast::Query query;         // named queries
  std::vector<std::string> slots;
  std::vector<ColumnRole> columns;
  ParsedQueries parsed_queries;  // ad hoc
  // Named queries of a database's schema (not temp) may come from someone else: they call only
  // the SQL functions a schema may call (sql_functions.h). Ad hoc queries are the caller's own.
  QueryOrigin origin;
  ConnectionContext::TableLookup store_table;  // the store table's session, found once
  // SQLite closes a table's cursors when a statement is reset and opens new ones when it runs
  // again: the last one closed is kept here, with its storage, for the next open.
  std::unique_ptr<QueryCursor> spare_cursor;
  eval::StepMemo step_memo;  // named queries: the planner's choices from the last calls
};

// An argument's value as SQLite passed it: its type and bytes.
class ArgumentCopy {
 public:
  void take(sqlite3_value* v) {
    type_ = v ? sqlite3_value_type(v) : SQLITE_NULL;
    given_ = v != nullptr;
    if (type_ == SQLITE_INTEGER) integer_ = sqlite3_value_int64(v);
    if (type_ == SQLITE_FLOAT) real_ = sqlite3_value_double(v);
    if (type_ == SQLITE_TEXT) bytes_.assign(text_of(v));
    if (type_ == SQLITE_BLOB) {
      const void* p = sqlite3_value_blob(v);
      bytes_.assign(p ? static_cast<const char*>(p) : "", static_cast<std::size_t>(sqlite3_value_bytes(v)));
    }
  }
  bool given() const { return given_; }
  void result(sqlite3_context* ctx) const {
    const int n = static_cast<int>(bytes_.size());
    switch (type_) {
      case SQLITE_INTEGER: sqlite3_result_int64(ctx, integer_); break;
      case SQLITE_FLOAT: sqlite3_result_double(ctx, real_); break;
      case SQLITE_TEXT: result_terminated_text(ctx, bytes_, SQLITE_TRANSIENT); break;
      case SQLITE_BLOB: sqlite3_result_blob(ctx, bytes_.data(), n, SQLITE_TRANSIENT); break;
      default: sqlite3_result_null(ctx); break;
    }
  }

 private:
  bool given_ = false;
  int type_ = SQLITE_NULL;
  sqlite3_int64 integer_ = 0;
  double real_ = 0;
  std::string bytes_;
};

struct QueryCursor : sqlite3_vtab_cursor {
  QueryTable* table() const { return static_cast<QueryTable*>(pVtab); }
  // Ad hoc: the query of this call. Declared before the results, which read it, so it goes last.
  std::shared_ptr<const ParsedQuery> parsed;
  QueryResults results;
  std::int64_t rowid = 0;
  // The argument values, by column (null when none): SQLite's own, valid only during xFilter.
  std::vector<sqlite3_value*> args;
  // The same values kept for xColumn after xFilter, in storage reused from call to call (a copy
  // with sqlite3_value_dup cost two allocations per call).
  std::vector<ArgumentCopy> kept;
  // The query's inputs of this call, in storage reused from call to call: a named table's slots
  // keep their map entries.
  eval::QueryInputs inputs;
};

std::string dequote(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    const char q = s.front();
    std::string out;
    for (std::size_t i = 1; i + 1 < s.size(); ++i) {
      out += s[i];
      if (s[i] == q && i + 2 < s.size() && s[i + 1] == q) ++i;
    }
    return out;
  }
  return s;
}

// A column's name: the element's text with every run of characters other than letters and
// digits made one '_' (none at the ends): ?min-x -> min_x, (count ?e) -> count_e. :in bindings
// and slots are named the same way.
std::string column_name(const ast::FindElement& f) {
  std::string raw;
  switch (f.kind) {
    case ast::FindElement::Kind::Variable: raw = f.var.name; break;
    case ast::FindElement::Kind::Aggregate:
    case ast::FindElement::Kind::Window:
      raw = f.has_var ? f.function + "_" + f.var.name : f.function;
      break;
    case ast::FindElement::Kind::Pull: raw = "pull_" + f.var.name; break;
  }
  std::string name;
  for (char c : raw) {
    if (std::isalnum(static_cast<unsigned char>(c))) name += c;
    else if (!name.empty() && name.back() != '_') name += '_';
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name.empty() ? "col" : name;
}

std::string unique_name(std::vector<std::string>& taken, std::string name) {
  std::string candidate = name;
  for (int n = 2; std::find(taken.begin(), taken.end(), candidate) != taken.end(); ++n) {
    candidate = fmt::format("{}_{}", name, n);
  }
  taken.push_back(candidate);
  return candidate;
}

std::string quoted(const std::string& name) { return "\"" + name + "\""; }

// --- named queries --------------------------------------------------------------------------

int named_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                  char** err) {
  return guarded(nullptr, [&]() -> int {
    if (argc != 5) {
      *err = sqlite3_mprintf(
          "datalog: datalog_query takes a store table and a query: "
          "USING datalog_query(g, '(query [...])')");
      return SQLITE_ERROR;
    }
    auto table = std::make_unique<QueryTable>();
    std::memset(static_cast<sqlite3_vtab*>(table.get()), 0, sizeof(sqlite3_vtab));
    table->context = static_cast<ConnectionContext*>(aux);
    table->graph = dequote(argv[3]);
    table->query_text = dequote(argv[4]);
    Status st = parse_query(table->query_text, &table->query);
    if (st.ok()) st = check_query(table->query);
    if (!st.ok()) {
      *err = sqlite3_mprintf("datalog: %s", st.message().c_str());
      return SQLITE_ERROR;
    }
    if (sqlite3_stricmp(argv[1], "temp") != 0) {
      table->origin.schema_object = fmt::format("datalog_query table {}.{}", argv[1], argv[2]);
    }
    table->slots = query_slots(table->query);
    std::vector<std::string> taken;
    std::string schema = "CREATE TABLE x(";
    auto add = [&](const std::string& name, bool hidden, ColumnRole role) {
      if (!table->columns.empty()) schema += ", ";
      role.name = unique_name(taken, name);
      schema += quoted(role.name) + (hidden ? " HIDDEN" : "");
      table->columns.push_back(std::move(role));
    };
    for (std::size_t i = 0; i < table->query.find.size(); ++i) {
      add(column_name(table->query.find[i]), false, {ColumnRole::Kind::Find, i, {}});
    }
    for (std::size_t i = 0; i < table->query.in.size(); ++i) {
      std::string name;
      for (const auto& v : table->query.in[i].vars) name += (name.empty() ? "" : "_") + v.name.substr(1);
      ast::FindElement as_column;
      as_column.var.name = "?" + name;
      add(column_name(as_column), true, {ColumnRole::Kind::InBinding, i, {}});
    }
    // Slots are named by the rule of every other column: `$expected-status` -> expected_status.
    for (std::size_t i = 0; i < table->slots.size(); ++i) {
      ast::FindElement as_column;
      as_column.var.name = "?" + table->slots[i];
      add(column_name(as_column), true, {ColumnRole::Kind::Slot, i, {}});
    }
    schema += ")";
    const int rc = sqlite3_declare_vtab(db, schema.c_str());
    if (rc != SQLITE_OK) {
      *err = sqlite3_mprintf("datalog: cannot declare the columns of this query: %s", sqlite3_errmsg(db));
      return rc;
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    *out = table.release();
    return SQLITE_OK;
  });
}

// Distinct from named_connect so the module is not eponymous (it needs its arguments).
int named_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                 char** err) {
  return named_connect(db, aux, argc, argv, out, err);
}

// --- ad hoc ----------------------------------------------------------------------------------

int adhoc_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  return guarded(nullptr, [&]() -> int {
    auto table = std::make_unique<QueryTable>();
    std::memset(static_cast<sqlite3_vtab*>(table.get()), 0, sizeof(sqlite3_vtab));
    table->context = static_cast<ConnectionContext*>(aux);
    table->ad_hoc = true;
    std::string schema = "CREATE TABLE x(";
    for (int i = 0; i < kAdHocColumns; ++i) {
      schema += fmt::format("c{}, ", i + 1);
      table->columns.push_back({ColumnRole::Kind::Find, static_cast<std::size_t>(i), {}});
    }
    schema += "graph HIDDEN, query HIDDEN";
    table->columns.push_back({ColumnRole::Kind::Graph, 0, {}});
    table->columns.push_back({ColumnRole::Kind::QueryText, 0, {}});
    for (int i = 0; i < kAdHocColumns; ++i) {
      schema += fmt::format(", a{} HIDDEN", i + 1);
      table->columns.push_back({ColumnRole::Kind::AdHocArg, static_cast<std::size_t>(i), {}});
    }
    schema += ", edn HIDDEN)";
    table->columns.push_back({ColumnRole::Kind::Edn, 0, {}});
    const int rc = sqlite3_declare_vtab(db, schema.c_str());
    if (rc != SQLITE_OK) return rc;
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    *out = table.release();
    return SQLITE_OK;
  });
}

int query_disconnect(sqlite3_vtab* vtab) {
  delete static_cast<QueryTable*>(vtab);
  return SQLITE_OK;
}

bool is_argument(ColumnRole::Kind k) {
  return k == ColumnRole::Kind::InBinding || k == ColumnRole::Kind::Slot ||
         k == ColumnRole::Kind::Graph || k == ColumnRole::Kind::QueryText ||
         k == ColumnRole::Kind::AdHocArg;
}

bool is_required(const QueryTable& t, ColumnRole::Kind k) {
  if (t.ad_hoc) return k == ColumnRole::Kind::Graph || k == ColumnRole::Kind::QueryText;
  return k == ColumnRole::Kind::InBinding || k == ColumnRole::Kind::Slot;
}

// Plan: idxStr lists the columns whose values reach xFilter, in argv order ("3,0").
int query_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  auto* table = static_cast<QueryTable*>(vtab);
  return guarded(vtab, [&]() -> int {
    const bool windows = std::any_of(table->query.find.begin(), table->query.find.end(),
                                     [](const auto& f) { return f.kind == ast::FindElement::Kind::Window; });
    std::vector<int> seen(table->columns.size(), -1);
    std::vector<bool> present(table->columns.size(), false);
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (c.iColumn < 0 || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      const ColumnRole& role = table->columns[static_cast<std::size_t>(c.iColumn)];
      if (is_argument(role.kind)) {
        present[static_cast<std::size_t>(c.iColumn)] = true;
        if (!c.usable) return SQLITE_CONSTRAINT;  // wait for a plan that can supply it
        seen[static_cast<std::size_t>(c.iColumn)] = i;
      } else if (c.usable && !table->ad_hoc && !windows &&
                 table->query.find[role.index].kind == ast::FindElement::Kind::Variable) {
        seen[static_cast<std::size_t>(c.iColumn)] = i;
      }
    }
    for (std::size_t col = 0; col < table->columns.size(); ++col) {
      if (is_required(*table, table->columns[col].kind) && !present[col]) {
        std::string what;
        if (table->ad_hoc) {
          what = "datalog_q needs a graph and a query: datalog_q('g', '(query [...])')";
        } else {
          what = fmt::format("table needs a value for every :in binding and slot of its query "
                             "(column {} is missing)", table->columns[col].name);
        }
        set_vtab_error(vtab, what);
        return SQLITE_ERROR;
      }
    }
    std::string plan;
    int next = 1;
    double cost = 1e6;
    for (std::size_t col = 0; col < table->columns.size(); ++col) {
      const int i = seen[col];
      if (i < 0) continue;
      info->aConstraintUsage[i].argvIndex = next++;
      const bool argument = is_argument(table->columns[col].kind);
      info->aConstraintUsage[i].omit = argument ? 1 : 0;
      if (!argument) cost /= 10;  // a pushed-down binding narrows the query
      plan += (plan.empty() ? "" : ",") + std::to_string(col);
    }
    info->idxStr = sqlite3_mprintf("%s", plan.c_str());
    if (!info->idxStr) return SQLITE_NOMEM;
    info->needToFreeIdxStr = 1;
    info->estimatedCost = cost;
    info->estimatedRows = static_cast<sqlite3_int64>(cost / 10);
    return SQLITE_OK;
  });
}

int query_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  auto* table = static_cast<QueryTable*>(vtab);
  QueryCursor* c = table->spare_cursor ? table->spare_cursor.release() : new (std::nothrow) QueryCursor();
  if (!c) return SQLITE_NOMEM;
  *out = c;
  return SQLITE_OK;
}

int query_close(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<QueryCursor*>(cur);
  auto* table = c->table();
  c->results.close();
  c->parsed.reset();
  if (table->spare_cursor) {
    delete c;
  } else {
    table->spare_cursor.reset(c);
  }
  return SQLITE_OK;
}

// The constraint values xBestIndex asked for, in c->args by column (idx_str lists the columns in
// argv's order: "3,0").
void take_constraint_values(QueryCursor* c, const char* idx_str, int argc, sqlite3_value** argv) {
  const std::size_t columns = c->table()->columns.size();
  c->args.assign(columns, nullptr);
  c->kept.resize(columns);
  int i = 0;
  // std::from_chars, not strtoul: no locale, a tenth of the instructions (this runs every call).
  const char* end = idx_str ? idx_str + std::strlen(idx_str) : nullptr;
  for (const char* p = idx_str; p && p < end && i < argc; ++i) {
    std::size_t column = columns;
    p = std::from_chars(p, end, column).ptr;
    if (column < columns) c->args[column] = argv[i];
    p = std::find(p, end, ',');
    if (p < end) ++p;
  }
  for (std::size_t column = 0; column < columns; ++column) c->kept[column].take(c->args[column]);
}

// What a datalog_q call runs: its query text (parsed once per text), its graph and its
// positional arguments a1..a8, which must be exactly the query's :in bindings and slots.
int ad_hoc_call(QueryCursor* c, sqlite3_vtab* vtab, std::string* graph, std::vector<sqlite3_value*>* positional) {
  QueryTable* table = c->table();
  std::string_view text;  // the argument's bytes, valid for this call
  for (std::size_t col = 0; col < table->columns.size(); ++col) {
    const ColumnRole& role = table->columns[col];
    if (!c->args[col]) continue;
    if (role.kind == ColumnRole::Kind::Graph) graph->assign(text_of(c->args[col]));
    if (role.kind == ColumnRole::Kind::QueryText) text = text_of(c->args[col]);
    if (role.kind == ColumnRole::Kind::AdHocArg) {
      if (positional->size() <= role.index) positional->resize(role.index + 1, nullptr);
      (*positional)[role.index] = c->args[col];
    }
  }
  const Status parsed = table->parsed_queries.get(text, &c->parsed);
  if (!parsed.ok()) return report(vtab, parsed);
  if (c->parsed->query.find.size() > static_cast<std::size_t>(kAdHocColumns)) {
    set_vtab_error(vtab, fmt::format("datalog_q shows at most {} :find elements; declare a "
                                     "datalog_query table for more", kAdHocColumns));
    return SQLITE_ERROR;
  }
  const std::size_t needed = c->parsed->query.in.size() + c->parsed->slots.size();
  std::size_t given = 0;
  while (given < positional->size() && (*positional)[given]) ++given;
  if (given != needed) {
    set_vtab_error(vtab, fmt::format("this query takes {} argument{} after the query "
                                     "(its :in bindings, then its slots); got {}",
                                     needed, needed == 1 ? "" : "s", given));
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

// A constraint on a :find column pushed down as a one-column binding: every stored value the SQL
// value could equal, each once (a duplicate would repeat every result row).
eval::Relation pushed_down_binding(const std::string& var, sqlite3_value* v) {
  eval::Relation rel;
  rel.vars.push_back(var);
  const IdentResolver none = [](const Value&, std::optional<EntityId>* out) {
    out->reset();
    return Status::OK();
  };
  std::vector<Value> candidates = equal_candidates(v, std::nullopt, none);
  candidates.push_back(datalog_value_of(v));  // ':bob' as the keyword it names
  for (Value& value : candidates) {
    const bool seen = std::any_of(rel.rows.begin(), rel.rows.end(),
                                  [&](eval::RowView r) { return r[0] == value; });
    if (!seen) rel.rows.push_back(eval::Row{std::move(value)});
  }
  return rel;
}

// The query's inputs: its :in bindings, then its slots (from their columns, or positionally
// for datalog_q), then the find variables SQL constrained.
Status query_inputs(const QueryCursor& c, const ast::Query& query, const std::vector<std::string>& slots,
                    const std::vector<sqlite3_value*>& positional, eval::QueryInputs* inputs) {
  const QueryTable* table = c.table();
  std::size_t next_positional = 0;
  auto argument = [&](ColumnRole::Kind kind, std::size_t index) -> sqlite3_value* {
    if (table->ad_hoc) return positional[next_positional++];
    for (std::size_t col = 0; col < table->columns.size(); ++col) {
      if (table->columns[col].kind == kind && table->columns[col].index == index) return c.args[col];
    }
    return nullptr;
  };
  for (std::size_t i = 0; i < query.in.size(); ++i) {
    sqlite3_value* v = argument(ColumnRole::Kind::InBinding, i);
    if (!v) continue;
    eval::Relation rel;
    DATALOG_RETURN_IF_ERROR(in_binding_relation(query.in[i], v, &rel));
    inputs->bindings.push_back(std::move(rel));
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    sqlite3_value* v = argument(ColumnRole::Kind::Slot, i);
    if (v) inputs->slots[slots[i]] = datalog_value_of(v);
    else inputs->slots.erase(slots[i]);
  }
  if (table->ad_hoc) return Status::OK();
  for (std::size_t col = 0; col < table->columns.size(); ++col) {
    const ColumnRole& role = table->columns[col];
    if (role.kind != ColumnRole::Kind::Find || !c.args[col]) continue;
    inputs->bindings.push_back(pushed_down_binding(query.find[role.index].var.name, c.args[col]));
  }
  return Status::OK();
}

int query_filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* c = static_cast<QueryCursor*>(cur);
  QueryTable* table = c->table();
  return guarded(cur->pVtab, [&]() -> int {
    c->results.close();
    c->rowid = 1;
    take_constraint_values(c, idx_str, argc, argv);
    struct ForgetArguments {  // SQLite's values end with xFilter
      QueryCursor* c;
      ~ForgetArguments() { c->args.assign(c->args.size(), nullptr); }
    } forget_arguments{c};
    // Which query, on which graph.
    const ast::Query* query = &table->query;
    const std::vector<std::string>* slots = &table->slots;
    eval::StepMemo* memo = &table->step_memo;
    std::string graph = table->graph;
    std::vector<sqlite3_value*> positional;  // ad hoc arguments a1..a8
    if (table->ad_hoc) {
      const int rc = ad_hoc_call(c, cur->pVtab, &graph, &positional);
      if (rc != SQLITE_OK) return rc;
      query = &c->parsed->query;
      slots = &c->parsed->slots;
      memo = &c->parsed->step_memo;
    }
    eval::QueryInputs& inputs = c->inputs;
    inputs.bindings.clear();
    if (table->ad_hoc) inputs.slots.clear();  // each call's query has slots of its own
    Status st = query_inputs(*c, *query, *slots, positional, &inputs);
    if (!st.ok()) return report(cur->pVtab, st);
    std::string error;
    eval::Limits limits;
    auto session = table->context->session_of_table(graph, &table->store_table, &error, &limits);
    if (!session) {
      set_vtab_error(cur->pVtab, error);
      return SQLITE_ERROR;
    }
    st = c->results.open(table->context->db(), *session, *query, inputs, table->origin, limits,
                         memo);
    return report(cur->pVtab, st);
  });
}

int query_next(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<QueryCursor*>(cur);
  return guarded(cur->pVtab, [&]() -> int {
    ++c->rowid;
    return report(cur->pVtab, c->results.next());
  });
}

int query_eof(sqlite3_vtab_cursor* cur) { return static_cast<QueryCursor*>(cur)->results.at_end() ? 1 : 0; }

int query_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int column) {
  auto* c = static_cast<QueryCursor*>(cur);
  return guarded(cur->pVtab, [&]() -> int {
    const ColumnRole& role = c->table()->columns[static_cast<std::size_t>(column)];
    const eval::RowView row = c->results.row();
    switch (role.kind) {
      case ColumnRole::Kind::Find:
        if (role.index < row.size()) c->results.result_cell(ctx, row[role.index]);
        break;
      case ColumnRole::Kind::Edn: {
        std::string text;
        const Status st = c->results.row_edn(&text);
        if (!st.ok()) return report(cur->pVtab, st);
        result_terminated_text(ctx, text, SQLITE_TRANSIENT);
        break;
      }
      default:
        if (static_cast<std::size_t>(column) < c->kept.size() && c->kept[static_cast<std::size_t>(column)].given()) {
          c->kept[static_cast<std::size_t>(column)].result(ctx);
        }
        break;
    }
    return SQLITE_OK;
  });
}

int query_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(static_cast<QueryCursor*>(cur)->rowid);
  return SQLITE_OK;
}

sqlite3_module make_module(bool ad_hoc) {
  sqlite3_module m{};
  m.iVersion = 1;
  m.xCreate = ad_hoc ? nullptr : named_create;
  m.xConnect = ad_hoc ? adhoc_connect : named_connect;
  m.xBestIndex = query_best_index;
  m.xDisconnect = query_disconnect;
  m.xDestroy = query_disconnect;
  m.xOpen = query_open;
  m.xClose = query_close;
  m.xFilter = query_filter;
  m.xNext = query_next;
  m.xEof = query_eof;
  m.xColumn = query_column;
  m.xRowid = query_rowid;
  return m;
}

const sqlite3_module kNamedModule = make_module(false);
const sqlite3_module kAdHocModule = make_module(true);

}  // namespace

int register_query_modules(sqlite3* db, ConnectionContext* context) {
  int rc = sqlite3_create_module_v2(db, "datalog_query", &kNamedModule, context, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_create_module_v2(db, "datalog_q", &kAdHocModule, context, nullptr);
  return rc;
}

}  // namespace datalog::ext
