#include "engine/script_runner.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/analyzer.h"
#include "engine/eval/write_runner.h"
#include "engine/parser.h"

namespace datalog {

namespace {

// *tx_time_ms: the wall time of the transaction the command wrote in (its facts' default
// valid-from).
Status run_write(ScriptHost& host, const ast::Command& cmd, const std::function<bool()>& interrupted,
                 CommandOutcome* outcome, std::int64_t* tx_time_ms) {
  GraphWriter* writer = nullptr;
  DATALOG_RETURN_IF_ERROR(host.begin_write(&writer));
  Status st;
  if (const auto* t = std::get_if<ast::Transact>(&cmd)) {
    outcome->kind = CommandOutcome::Kind::Transact;
    st = eval::run_transact(*writer, *t, &outcome->datoms, interrupted);
  } else if (const auto* r = std::get_if<ast::Retract>(&cmd)) {
    outcome->kind = CommandOutcome::Kind::Retract;
    st = eval::run_retract(*writer, *r, &outcome->datoms, &outcome->not_asserted, interrupted);
  } else if (const auto* rule = std::get_if<ast::Rule>(&cmd)) {
    outcome->kind = CommandOutcome::Kind::Rule;
    outcome->rule_name = rule->name;
    std::vector<ast::Rule> rules;
    st = check_rule(*rule);
    if (st.ok()) st = load_rules(*writer, &rules);
    if (st.ok()) {
      rules.push_back(*rule);
      st = check_rule_set(rules);
    }
    if (st.ok()) st = writer->add_rule(StoredRule{rule->name, rule->source});
  }
  outcome->tx = writer->tx();
  *tx_time_ms = writer->tx_time_ms();
  const Status ended = host.end_write(st.ok());
  return st.ok() ? ended : st;
}

}  // namespace

Status parse_query(std::string_view text, ast::Query* query) {
  std::vector<ast::Command> commands;
  DATALOG_RETURN_IF_ERROR(parse_script(text, &commands));
  if (commands.size() != 1 || !std::holds_alternative<ast::QueryCommand>(commands[0])) {
    return Status(StatusCode::InvalidArgument,
                  "expected exactly one (query [...]) form");
  }
  *query = std::get<ast::QueryCommand>(commands[0]).query;
  return Status::OK();
}

Status load_rules(GraphReader& graph, std::vector<ast::Rule>* rules) {
  rules->clear();
  std::vector<StoredRule> stored;
  DATALOG_RETURN_IF_ERROR(graph.rules(&stored));
  for (const StoredRule& s : stored) {
    std::vector<ast::Command> commands;
    const Status st = parse_script(s.source, &commands);
    if (!st.ok() || commands.size() != 1 || !std::holds_alternative<ast::Rule>(commands[0])) {
      return Status(StatusCode::Corrupt,
                    fmt::format("stored rule '{}' does not parse: {}", s.name, st.message()));
    }
    rules->push_back(std::move(std::get<ast::Rule>(commands[0])));
  }
  return Status::OK();
}

Status check_query_with_rules(const ast::Query& query, const std::vector<ast::Rule>& rules) {
  DATALOG_RETURN_IF_ERROR(check_query(query));
  return check_rule_calls(query, rules);
}

Status run_commands(ScriptHost& host, const std::vector<ast::Command>& commands,
                    const eval::RunOptions& options, std::vector<CommandOutcome>* outcomes) {
  // A query sees every command before it: "now" (its default valid time) is never earlier than
  // the default valid-from of what the script wrote, however the clock moved meanwhile.
  eval::RunOptions query_options = options;
  for (const ast::Command& cmd : commands) {
    CommandOutcome outcome;
    if (const auto* q = std::get_if<ast::QueryCommand>(&cmd)) {
      GraphReader* reader = nullptr;
      DATALOG_RETURN_IF_ERROR(host.reader(&reader));
      std::vector<ast::Rule> rules;
      DATALOG_RETURN_IF_ERROR(load_rules(*reader, &rules));
      DATALOG_RETURN_IF_ERROR(check_query_with_rules(q->query, rules));
      outcome.kind = CommandOutcome::Kind::Query;
      DATALOG_RETURN_IF_ERROR(eval::run_query(*reader, q->query, rules, {}, query_options, &outcome.result));
    } else {
      std::int64_t written_at = query_options.now_ms;
      DATALOG_RETURN_IF_ERROR(run_write(host, cmd, options.interrupted, &outcome, &written_at));
      query_options.now_ms = std::max(query_options.now_ms, written_at);
    }
    outcomes->push_back(std::move(outcome));
  }
  return Status::OK();
}

namespace {

std::string show(const Value& v, GraphReader* names) {
  if (v.is(ValueKind::Ref) && names) {
    std::optional<Value> name;
    if (names->ident_of(v.as_ref(), &name).ok() && name) return name->to_edn();
    return fmt::format("{}", v.as_ref());
  }
  return v.to_edn();
}

}  // namespace

bool outcomes_show_entities(const std::vector<CommandOutcome>& outcomes) {
  for (const CommandOutcome& o : outcomes) {
    if (o.kind != CommandOutcome::Kind::Query) continue;
    for (const auto& row : o.result.rows) {
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (row[i].is(ValueKind::Ref)) return true;
      }
    }
  }
  return false;
}

std::string format_outcomes(const std::vector<CommandOutcome>& outcomes, GraphReader* names) {
  std::string out;
  for (const CommandOutcome& o : outcomes) {
    switch (o.kind) {
      case CommandOutcome::Kind::Transact:
        out += fmt::format("transacted: tx {}, {} datom{}\n", o.tx, o.datoms, o.datoms == 1 ? "" : "s");
        break;
      case CommandOutcome::Kind::Retract:
        out += fmt::format("retracted: tx {}, {} datom{}", o.tx, o.datoms, o.datoms == 1 ? "" : "s");
        if (o.not_asserted > 0) {
          out += fmt::format(" ({} fact{} not asserted: nothing to retract)", o.not_asserted,
                             o.not_asserted == 1 ? " was" : "s were");
        }
        out += '\n';
        break;
      case CommandOutcome::Kind::Rule:
        out += fmt::format("rule: {} defined\n", o.rule_name);
        break;
      case CommandOutcome::Kind::Query: {
        const auto& r = o.result;
        if (r.rows.empty()) {
          out += "No results found.\n";
          break;
        }
        std::string header;
        for (std::size_t i = 0; i < r.columns.size(); ++i) header += (i ? "\t" : "") + r.columns[i];
        out += header + "\n" + std::string(std::max<std::size_t>(header.size(), 3), '-') + "\n";
        for (const auto& row : r.rows) {
          for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "\t" : "") + show(row[i], names);
          out += "\n";
        }
        out += fmt::format("{} result(s) found.\n", r.rows.size());
        break;
      }
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace datalog
