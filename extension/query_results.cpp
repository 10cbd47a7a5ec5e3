#include "extension/query_results.h"

#include "engine/ast_walk.h"
#include "engine/analyzer.h"
#include "engine/script_runner.h"
#include "engine/time_text.h"
#include "extension/sql_values.h"

namespace datalog::ext {

namespace {

bool calls_rules(const std::vector<ast::Clause>& clauses) {
  bool calls = false;
  ast::walk_clauses(clauses, [&](const ast::Clause& clause) {
    calls = calls || std::holds_alternative<ast::RuleCall>(clause.node);
  });
  return calls;
}

}  // namespace

void QueryResults::close() {
  stream_.reset();
  sql_functions_.reset();
  probe_.reset();
  reading_.reset();
  rows_.clear();
  shared_names_ = nullptr;
  names_.clear();
  pos_ = 0;
  at_end_ = true;
}

Status QueryResults::open(sqlite3* db, GraphSession& session, const ast::Query& query,
                          const eval::QueryInputs& inputs, const QueryOrigin& origin,
                          const eval::Limits& limits) {
  close();
  std::unique_ptr<GraphReading> reading;
  DATALOG_RETURN_IF_ERROR(GraphReading::open(session, &reading));
  static const std::vector<ast::Rule> kNoRules;
  GraphSession::Rules loaded;
  if (calls_rules(query.where)) {
    DATALOG_RETURN_IF_ERROR(reading->rules(&loaded));
    DATALOG_RETURN_IF_ERROR(check_rule_calls(query, *loaded));
  }
  const std::vector<ast::Rule>& rules = loaded ? *loaded : kNoRules;
  const bool on_snapshot = !(session.writer() && session.writer()->open());
  if (on_snapshot) shared_names_ = &session.env().read_cache();
  if (!on_snapshot || !rules.empty()) return evaluate(db, std::move(reading), query, rules, inputs, origin, limits);

  probe_.emplace(db);
  sql_functions_.emplace(db, &origin);
  eval::RunOptions options;
  options.limits = limits;
  options.now_ms = now_ms();
  options.interrupted = [probe = &*probe_] { return probe->interrupted(); };
  options.external = &*sql_functions_;
  DATALOG_RETURN_IF_ERROR(eval::QueryStream::open(reading->access(), query, inputs, options, &stream_));
  if (!stream_) {
    probe_.reset();
    sql_functions_.reset();
    return evaluate(db, std::move(reading), query, rules, inputs, origin, limits);
  }
  reading_ = std::move(reading);
  at_end_ = false;
  return next();
}

Status QueryResults::evaluate(sqlite3* db, std::unique_ptr<GraphReading> reading, const ast::Query& query,
                              const std::vector<ast::Rule>& rules, const eval::QueryInputs& inputs,
                              const QueryOrigin& origin, const eval::Limits& limits) {
  InterruptProbe probe(db);
  SqlFunctions sql_functions(db, &origin);
  const eval::RunOptions options = run_options(probe, sql_functions, limits);
  eval::QueryResult result;
  DATALOG_RETURN_IF_ERROR(eval::run_query(reading->access(), query, rules, inputs, options, &result));
  rows_ = std::move(result.rows);
  // Every entity's name is found now, so the snapshot can go before the first row.
  for (const auto& row : rows_) {
    for (const Value& v : row) {
      if (!v.is(ValueKind::Ref)) continue;
      const Value* shared = nullptr;
      if (shared_names_) DATALOG_RETURN_IF_ERROR(reading->access().shared_name(v.as_ref(), &shared));
      if (shared || names_.count(v.as_ref())) continue;
      std::optional<Value> name;
      DATALOG_RETURN_IF_ERROR(reading->access().ident_of(v.as_ref(), &name));
      names_.emplace(v.as_ref(), std::move(name));
    }
  }
  pos_ = 0;
  at_end_ = rows_.empty();
  return Status::OK();
}

Status QueryResults::next() {
  if (!stream_) {
    at_end_ = ++pos_ >= rows_.size();
    return Status::OK();
  }
  bool done = true;
  const Status st = stream_->next(&current_, &done);
  if (!st.ok() || done) {
    at_end_ = true;
    // Let the snapshot go as soon as the scan ends.
    stream_.reset();
    current_.clear();
    reading_.reset();
  }
  return st;
}

Status QueryResults::name_of(EntityId id, std::optional<Value>* out) {
  if (shared_names_) {
    if (const Value* shared = shared_names_->name(id)) {
      *out = *shared;
      return Status::OK();
    }
  }
  if (reading_) return reading_->access().ident_of(id, out);
  auto it = names_.find(id);
  if (it != names_.end()) *out = it->second;
  return Status::OK();
}

void QueryResults::result_cell(sqlite3_context* ctx, const Value& v) {
  if (v.is(ValueKind::Ref) && shared_names_) {
    // The usual case, an entity of a snapshot: its name straight from the shared cache.
    const EntityId id = v.as_ref();
    const Value* shared = shared_names_->name(id);
    if (!shared && reading_) reading_->access().shared_name(id, &shared);
    if (shared) {
      result_named_entity(ctx, id, shared, true);
      return;
    }
  }
  result_value(ctx, v, [this](EntityId id, std::optional<Value>* name) { return name_of(id, name); });
}

std::string QueryResults::row_edn() {
  std::string text = "[";
  const eval::RowView r = row();
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (i) text += ' ';
    const Value& v = r[i];
    std::optional<Value> name;
    if (v.is(ValueKind::Ref)) name_of(v.as_ref(), &name);
    text += name ? name->to_edn() : v.to_edn();
  }
  return text + "]";
}

}  // namespace datalog::ext
