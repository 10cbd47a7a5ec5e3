#include "lmdb_store/index_check.h"

#include <fmt/format.h>

#include <string_view>

#include "lmdb_store/catalog.h"
#include "lmdb_store/datom_layout.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/table_cursor.h"

namespace datalog::store {

namespace {

struct TableSpec {
  const char* name;
  MDB_dbi Tables::*member;
  bool datoms;  // records of the four datom indexes: described by their datom
  IndexId index;
};

constexpr TableSpec kCompared[] = {
    {"eavt", &Tables::eavt, true, IndexId::Eavt},
    {"aevt", &Tables::aevt, true, IndexId::Aevt},
    {"avet", &Tables::avet, true, IndexId::Avet},
    {"vaet", &Tables::vaet, true, IndexId::Vaet},
    {"ident_names", &Tables::ident_names, false, IndexId::Eavt},
    {"ident_ids", &Tables::ident_ids, false, IndexId::Eavt},
    {"giants", &Tables::giants, false, IndexId::Eavt},
    {"rules", &Tables::rules, false, IndexId::Eavt},
    {"stats", &Tables::stats, false, IndexId::Eavt},
    {"txlog", &Tables::txlog, false, IndexId::Eavt},
};

class Comparison {
 public:
  Comparison(MDB_txn* index_txn, const Tables& index_tables, IndexCheck* out)
      : times_(index_txn, index_tables), out_(*out) {}

  void problem(std::string text) {
    ++out_.problem_count;
    if (out_.problems.size() < IndexCheck::kMaxProblems) out_.problems.push_back(std::move(text));
  }

  // What a record of table spec is, for a message.
  std::string describe(const TableSpec& spec, std::string_view key, std::string_view data) {
    if (spec.datoms) {
      Datom d;
      GiantRef giant;
      if (decode_datom(spec.index, key, data, &d, &giant, &times_)) {
        return fmt::format("[e {} a {} v {} tx {} op {}]", d.e, d.a, d.v.to_edn(), d.tx,
                           static_cast<int>(d.op));
      }
      // A record whose key decodes but whose check byte (record_check.h) does not hold.
      if (decode_datom(spec.index, key, encode_record_data(key, kForever), &d, &giant, &times_)) {
        return fmt::format("[e {} a {} v {} tx {} op {}] (its check byte is wrong)", d.e, d.a,
                           d.v.to_edn(), d.tx, static_cast<int>(d.op));
      }
      return fmt::format("a malformed key of {} bytes", key.size());
    }
    std::string hex;
    for (std::size_t i = 0; i < key.size() && i < 16; ++i) {
      hex += fmt::format("{:02x}", static_cast<unsigned char>(key[i]));
    }
    return fmt::format("key {}{}", hex, key.size() > 16 ? "..." : "");
  }

  // Counts the checked index's datom records, and its references (what VAET must hold).
  void count(const TableSpec& spec, std::string_view key, std::string_view data) {
    if (!spec.datoms) return;
    switch (spec.index) {
      case IndexId::Eavt: {
        ++out_.eavt;
        Datom d;
        GiantRef giant;
        if (decode_datom(IndexId::Eavt, key, data, &d, &giant, &times_) && d.v.is(ValueKind::Ref)) ++refs_;
        break;
      }
      case IndexId::Aevt: ++out_.aevt; break;
      case IndexId::Avet: ++out_.avet; break;
      case IndexId::Vaet: ++out_.vaet; break;
    }
  }

  std::uint64_t refs() const { return refs_; }

 private:
  IndexTxTimes times_;
  IndexCheck& out_;
  std::uint64_t refs_ = 0;
};

}  // namespace

Status compare_indexes(const GraphEnv& index, MDB_txn* index_txn, const GraphEnv& expected,
                       MDB_txn* expected_txn, IndexCheck* out) {
  *out = IndexCheck{};
  Comparison cmp(index_txn, index.tables(), out);
  for (const TableSpec& spec : kCompared) {
    TableCursor mine, theirs;
    DATALOG_RETURN_IF_ERROR(mine.open(index_txn, index.tables().*spec.member, spec.name));
    DATALOG_RETURN_IF_ERROR(theirs.open(expected_txn, expected.tables().*spec.member, spec.name));
    DATALOG_RETURN_IF_ERROR(mine.step(MDB_FIRST));
    DATALOG_RETURN_IF_ERROR(theirs.step(MDB_FIRST));
    while (!mine.at_end() || !theirs.at_end()) {
      const int order = mine.at_end()     ? 1
                        : theirs.at_end() ? -1
                                          : mine.key().compare(theirs.key());
      if (order < 0) {
        cmp.problem(fmt::format("{}: {} is in the index but not in the log",
                                spec.name, cmp.describe(spec, mine.key(), mine.data())));
      } else if (order > 0) {
        cmp.problem(fmt::format("{}: {} is in the log but not in the index", spec.name,
                                cmp.describe(spec, theirs.key(), theirs.data())));
      } else if (mine.data() != theirs.data()) {
        cmp.problem(fmt::format("{}: {} holds other data than the log gives", spec.name,
                                cmp.describe(spec, mine.key(), theirs.data())));
      }
      if (order <= 0) {
        cmp.count(spec, mine.key(), mine.data());
        DATALOG_RETURN_IF_ERROR(mine.step(MDB_NEXT));
      }
      if (order >= 0) DATALOG_RETURN_IF_ERROR(theirs.step(MDB_NEXT));
    }
  }
  // The four indexes against each other: every record in each, every reference in VAET.
  if (out->aevt != out->eavt || out->avet != out->eavt) {
    cmp.problem(fmt::format("the indexes disagree: eavt holds {} records, aevt {}, avet {}",
                            out->eavt, out->aevt, out->avet));
  }
  if (out->vaet != cmp.refs()) {
    cmp.problem(fmt::format("vaet holds {} records; eavt holds {} references", out->vaet, cmp.refs()));
  }
  return Status::OK();
}

}  // namespace datalog::store
