#include <charconv>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "engine/edn_reader.h"
#include "extension/io/edn_pieces.h"
#include "extension/io/history_edn.h"
#include "extension/io/text_codec.h"

namespace datalog::ext::io {

namespace {

using edn::Node;
using edn::NodeKind;

const Node* member(const Node& map, std::string_view key) {
  for (std::size_t i = 0; i + 1 < map.items.size(); i += 2) {
    if (map.items[i].is_keyword(key)) return &map.items[i + 1];
  }
  return nullptr;
}

class HistoryReader {
 public:
  HistoryReader(InputFile& file, InterruptProbe& probe, ReplayProgress& progress,
                const std::function<Status(store::LogRow&)>& sink)
      : file_(file), probe_(probe), progress_(progress), sink_(sink) {}

  std::uint64_t facts = 0;

  Status map(const std::string& text, std::uint64_t line) {
    line_ = line;
    std::vector<Node> forms;
    const Status parsed = edn::read_forms(text, &forms);
    if (!parsed.ok()) return edn_error_in_file(file_, line, parsed);
    const Node& m = forms.front();
    if (!seen_header_) {
      const Node* version = member(m, kHistoryKey);
      if (!version || version->kind != NodeKind::Integer || version->integer != 1) {
        return error(m, "a history file begins with {:datalog/history 1 ...}");
      }
      seen_header_ = true;
      return Status::OK();
    }
    return row(m);
  }

 private:
  Status error(const Node& at, std::string_view message) const {
    return file_.error_at(line_ + static_cast<std::uint64_t>(at.pos.line) - 1, message);
  }

  Status integer(const Node& map, std::string_view key, std::int64_t* out) const {
    const Node* n = member(map, key);
    if (!n || n->kind != NodeKind::Integer) return error(map, fmt::format("a row needs {} (an integer)", key));
    *out = n->integer;
    return Status::OK();
  }

  Status value(const Node& n, Value* out) const {
    switch (n.kind) {
      case NodeKind::String: *out = Value::string(n.text); return Status::OK();
      case NodeKind::Integer: *out = Value::integer(n.integer); return Status::OK();
      case NodeKind::Float: *out = Value::floating(n.floating); return Status::OK();
      case NodeKind::Boolean: *out = Value::boolean(n.boolean); return Status::OK();
      case NodeKind::Nil: *out = Value::nil(); return Status::OK();
      case NodeKind::Instant: *out = Value::instant(n.integer); return Status::OK();
      case NodeKind::Uuid: *out = Value::uuid(n.uuid); return Status::OK();
      case NodeKind::Keyword: *out = Value::keyword(n.text); return Status::OK();
      case NodeKind::Map: {
        if (const Node* r = member(n, ":ref"); r && r->kind == NodeKind::Integer) {
          *out = Value::ref(r->integer);
          return Status::OK();
        }
        if (const Node* b = member(n, ":bytes"); b && b->kind == NodeKind::String) {
          auto bytes = hex_decode(b->text);
          if (!bytes) return error(n, "bad hex in {:bytes ...}");
          *out = Value::bytes(std::move(*bytes));
          return Status::OK();
        }
        if (const Node* f = member(n, ":float"); f && f->kind == NodeKind::String) {
          double d = 0;
          if (f->text == "inf" || f->text == "-inf") {
            d = f->text == "inf" ? HUGE_VAL : -HUGE_VAL;
          } else if (!parse_number(f->text, &d) || std::isnan(d)) {
            return error(n, "bad text in {:float ...}");
          }
          *out = Value::floating(d);
          return Status::OK();
        }
        break;
      }
      default: break;
    }
    return error(n, "not a value of a history record");
  }

  // tx_time_ms: the row's transaction time (what an assertion's valid-from defaults to).
  Status record(const Node& r, std::int64_t tx_time_ms, std::string& body) {
    auto ints = [&](std::size_t first, std::size_t count, std::int64_t* out) -> Status {
      for (std::size_t k = 0; k < count; ++k) {
        if (r.items[first + k].kind != NodeKind::Integer) return error(r, "expected an integer entity id or time");
        out[k] = r.items[first + k].integer;
      }
      return Status::OK();
    };
    auto arity = [&](std::size_t n) {
      return r.items.size() == n ? Status::OK() : error(r, fmt::format("{} takes {} items", r.items[0].text, n - 1));
    };
    if (r.kind != NodeKind::Vector || r.items.empty() || r.items[0].kind != NodeKind::Keyword) {
      return error(r, "a record is a vector beginning with its kind (:ident, :assert, :retract, :rule, :unrule, :counter)");
    }
    const std::string& kind = r.items[0].text;
    std::int64_t n[4] = {};
    Value v;
    if (kind == ":ident") {
      DATALOG_RETURN_IF_ERROR(arity(3));
      DATALOG_RETURN_IF_ERROR(ints(1, 1, n));
      DATALOG_RETURN_IF_ERROR(value(r.items[2], &v));
      if (!v.is(ValueKind::Keyword) && !v.is(ValueKind::Uuid)) return error(r, "an ident is a keyword or a #uuid");
      store::log_ident(body, n[0], v);
    } else if (kind == ":assert") {
      DATALOG_RETURN_IF_ERROR(arity(6));
      DATALOG_RETURN_IF_ERROR(ints(1, 2, n));
      DATALOG_RETURN_IF_ERROR(ints(4, 2, n + 2));
      DATALOG_RETURN_IF_ERROR(value(r.items[3], &v));
      store::log_assert(body, n[0], n[1], v, n[2], n[3], tx_time_ms);
      ++facts;
    } else if (kind == ":retract") {
      DATALOG_RETURN_IF_ERROR(arity(4));
      DATALOG_RETURN_IF_ERROR(ints(1, 2, n));
      DATALOG_RETURN_IF_ERROR(value(r.items[3], &v));
      store::log_retract(body, n[0], n[1], v);
      ++facts;
    } else if (kind == ":rule") {
      DATALOG_RETURN_IF_ERROR(arity(3));
      if (r.items[1].kind != NodeKind::String || r.items[2].kind != NodeKind::String) {
        return error(r, ":rule takes a name and a source, both strings");
      }
      store::log_rule(body, StoredRule{r.items[1].text, r.items[2].text});
    } else if (kind == ":unrule") {
      DATALOG_RETURN_IF_ERROR(arity(2));
      if (r.items[1].kind != NodeKind::String) return error(r, ":unrule takes a rule name (a string)");
      store::log_rules_removed(body, r.items[1].text);
    } else if (kind == ":counter") {
      DATALOG_RETURN_IF_ERROR(arity(1));
      store::log_counter_consumed(body);
    } else {
      return error(r, fmt::format("unknown record {}", kind));
    }
    return Status::OK();
  }

  Status row(const Node& m) {
    if (m.kind != NodeKind::Map) return error(m, "expected a row map {:seq ...}");
    std::int64_t seq = 0, tx = 0, time = 0;
    DATALOG_RETURN_IF_ERROR(integer(m, ":seq", &seq));
    DATALOG_RETURN_IF_ERROR(integer(m, ":tx", &tx));
    DATALOG_RETURN_IF_ERROR(integer(m, ":tx-time", &time));
    if (static_cast<std::uint64_t>(seq) != next_seq_) {
      return error(m, fmt::format("row :seq {} out of order (expected {})", seq, next_seq_));
    }
    if (tx < 0 || static_cast<std::uint64_t>(tx) < last_tx_) {
      return error(m, fmt::format("row :tx {} goes back (the row before had {})", tx, last_tx_));
    }
    const Node* records = member(m, ":records");
    if (!records || records->kind != NodeKind::Vector) return error(m, "a row needs :records [...]");
    store::LogRow row;
    row.tx = static_cast<std::uint64_t>(tx);
    row.tx_time_ms = time;
    for (const Node& r : records->items) DATALOG_RETURN_IF_ERROR(record(r, time, row.body));
    ++next_seq_;
    last_tx_ = row.tx;
    progress_.set_done(file_.bytes_read(), facts);
    if (probe_.interrupted()) return Status(StatusCode::Interrupted, "interrupted");
    return sink_(row);
  }

  InputFile& file_;
  InterruptProbe& probe_;
  ReplayProgress& progress_;
  const std::function<Status(store::LogRow&)>& sink_;
  std::uint64_t line_ = 0, next_seq_ = 1, last_tx_ = 0;
  bool seen_header_ = false;
};

}  // namespace

bool is_history_file(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t start = line.find_first_not_of(" \t\r,");
    if (start == std::string::npos || line[start] == ';') continue;
    return line.compare(start, 1 + kHistoryKey.size(), fmt::format("{{{}", kHistoryKey)) == 0;
  }
  return false;
}

Status read_history(InputFile& file, InterruptProbe& probe, ReplayProgress& progress,
                    const std::function<Status(store::LogRow&)>& sink, std::uint64_t* facts) {
  HistoryReader reader(file, probe, progress, sink);
  EdnPieceHandler handler;
  handler.map = [&](const std::string& text, std::uint64_t line) { return reader.map(text, line); };
  handler.elements = [&](const std::string&, std::uint64_t line) {
    return file.error_at(line, "transaction data in a history file (a history holds row maps only)");
  };
  handler.vector_end = [] { return Status::OK(); };
  DATALOG_RETURN_IF_ERROR(split_edn(file, handler));
  *facts = reader.facts;
  return Status::OK();
}

}  // namespace datalog::ext::io
