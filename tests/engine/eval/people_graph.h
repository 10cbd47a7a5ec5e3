// tests/engine/eval/people_graph.h: a small graph of people in memory, for unit tests that run
// whole queries (streaming, joins, negation) without a store.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "stub_graph.h"

namespace datalog::eval {

// Three people in memory (1 alice 30, friend of 2 bob 25, friend of 3 carol 41); a test may add
// more. Every fact is asserted at tx 1 and valid forever (time views are ignored). Counts the
// cursors that are open, so a test can see when a stream has let go of its scan.
class PeopleGraph : public StubGraph {
 public:
  static constexpr EntityId kName = 11, kAge = 12, kFriend = 13;

  PeopleGraph()
      : StubGraph({{":person/name", kName}, {":person/age", kAge}, {":person/friend", kFriend}, {":bob", 2}}) {
    add(1, kName, Value::string("alice"));
    add(1, kAge, Value::integer(30));
    add(1, kFriend, Value::ref(2));
    add(2, kName, Value::string("bob"));
    add(2, kAge, Value::integer(25));
    add(2, kFriend, Value::ref(3));
    add(3, kName, Value::string("carol"));
    add(3, kAge, Value::integer(41));
  }

  Status scan(const DatomFilter& f, const TimeView&, const std::function<bool(const Datom&)>& emit) override {
    for (const Datom& d : datoms_) {
      if (matches(f, d) && !emit(d)) break;
    }
    return Status::OK();
  }
  Status open_cursor(const DatomFilter& f, const TimeView&, std::unique_ptr<DatomCursor>* out) override {
    auto cursor = std::make_unique<VectorCursor>(this);
    for (const Datom& d : datoms_) {
      if (matches(f, d)) cursor->datoms.push_back(d);
    }
    *out = std::move(cursor);
    return Status::OK();
  }
  double estimate(const DatomFilter& f) override {
    double n = 0;
    for (const Datom& d : datoms_) n += matches(f, d) ? 1 : 0;
    return n;
  }
  Status rules(std::vector<StoredRule>* out) override {
    *out = {{"reach", "(rule [(reach ?a ?b) [?a :person/friend ?b]])"},
            {"reach", "(rule [(reach ?a ?c) [?a :person/friend ?b] (reach ?b ?c)])"}};
    return Status::OK();
  }

  void add(EntityId e, EntityId a, Value v) {
    Datom d;
    d.e = e;
    d.a = a;
    d.v = std::move(v);
    d.tx = 1;
    datoms_.push_back(std::move(d));
  }

  int open_cursors = 0;

 private:
  struct VectorCursor : DatomCursor {
    explicit VectorCursor(PeopleGraph* g) : graph(g) { ++graph->open_cursors; }
    ~VectorCursor() override { --graph->open_cursors; }
    bool at_end() const override { return pos >= datoms.size(); }
    const Datom& datom() const override { return datoms[pos]; }
    Datom& take_datom() override { return datoms[pos]; }
    Status next() override {
      ++pos;
      return Status::OK();
    }
    PeopleGraph* graph;
    std::vector<Datom> datoms;
    std::size_t pos = 0;
  };

  static bool matches(const DatomFilter& f, const Datom& d) {
    return (!f.e || *f.e == d.e) && (!f.a || *f.a == d.a) && (!f.v || *f.v == d.v) && f.in_v_ranges(d.v);
  }

  std::vector<Datom> datoms_;
};

}  // namespace datalog::eval
