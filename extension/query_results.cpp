#include "extension/query_results.h"

#include "extension/sql_values.h"

namespace datalog::ext {

void QueryResults::close() {
  if (execution_) execution_->clear();  // kept for the next open: no allocation per call
  release_snapshot();
  shared_names_ = nullptr;
  if (!names_.empty()) names_.clear();  // clearing an empty map still wipes its buckets
}

void QueryResults::release_snapshot() {
  sql_functions_.reset();
  probe_.reset();
  reading_.reset();
}

Status QueryResults::open(sqlite3* db, GraphSession& session, const ast::Query& query,
                          const eval::QueryInputs& inputs, const QueryOrigin& origin,
                          const eval::Limits& limits, eval::StepMemo* memo) {
  close();
  DATALOG_RETURN_IF_ERROR(GraphReading::open(session, &reading_));
  const bool on_snapshot = !(session.writer() && session.writer()->open());
  if (on_snapshot) shared_names_ = &session.env().read_cache();
  GraphSession::Rules loaded;
  const auto rules = [&](const std::vector<ast::Rule>** out) {
    DATALOG_RETURN_IF_ERROR(reading_->rules(&loaded));
    *out = &*loaded;
    return Status::OK();
  };
  probe_.emplace(db);
  sql_functions_.emplace(db, &origin);
  eval::RunOptions options = run_options(*probe_, *sql_functions_, limits);
  options.step_memo = memo;
  const Status st = eval::QueryExecution::start(reading_->access(), query, rules, inputs, options,
                                                on_snapshot, &execution_);
  if (!st.ok()) {
    close();
    return st;
  }
  if (!execution_->streaming()) {
    const Status named = resolve_names();
    release_snapshot();
    return named;
  }
  if (execution_->at_end()) release_snapshot();
  return Status::OK();
}

Status QueryResults::resolve_names() {
  for (const auto& row : execution_->rows()) {
    for (const Value& v : row) {
      if (!v.is(ValueKind::Ref)) continue;
      const Value* shared = nullptr;
      if (shared_names_) DATALOG_RETURN_IF_ERROR(reading_->access().shared_name(v.as_ref(), &shared));
      if (shared || names_.count(v.as_ref())) continue;
      std::optional<Value> name;
      DATALOG_RETURN_IF_ERROR(reading_->access().ident_of(v.as_ref(), &name));
      names_.emplace(v.as_ref(), std::move(name));
    }
  }
  return Status::OK();
}

Status QueryResults::next() {
  const Status st = execution_->next();
  // A stream lets its snapshot go as soon as the scan ends.
  if (execution_->at_end() && reading_) release_snapshot();
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

Status QueryResults::row_edn(std::string* text) {
  std::string out = "[";
  const eval::RowView r = row();
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (i) out += ' ';
    const Value& v = r[i];
    std::optional<Value> name;
    if (v.is(ValueKind::Ref)) DATALOG_RETURN_IF_ERROR(name_of(v.as_ref(), &name));
    out += name ? name->to_edn() : v.to_edn();
  }
  out += ']';
  *text = std::move(out);
  return Status::OK();
}

}  // namespace datalog::ext
