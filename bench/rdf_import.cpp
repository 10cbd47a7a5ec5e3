#include "rdf_import.h"

#include <cstdio>
#include <fstream>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "stores.h"

namespace bench {
namespace {

constexpr long long kTriplesPerPerson = 5;
constexpr std::string_view kPerson = "http://example.org/person/";
constexpr std::string_view kFoaf = "http://xmlns.com/foaf/0.1/";
constexpr std::string_view kType = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
constexpr std::string_view kInteger = "http://www.w3.org/2001/XMLSchema#integer";

// The text between `open` at in[pos] and the next `close`; pos moves past the close.
std::string_view take_between(std::string_view in, std::size_t& pos, char close) {
  const std::size_t end = in.find(close, pos + 1);
  if (end == std::string_view::npos) die(fmt::format("malformed triple: {}", in));
  const std::string_view text = in.substr(pos + 1, end - pos - 1);
  pos = end + 1;
  return text;
}

// The plain importer: the file's triples into the baseline's facts table, in one transaction.
long long import_plain(Connection& db, const std::string& path) {
  std::unordered_map<std::string, long long> entities, attributes;
  const auto id_of = [](std::unordered_map<std::string, long long>& ids, std::string_view iri) {
    const auto [it, added] = ids.try_emplace(std::string(iri), static_cast<long long>(ids.size()) + 1);
    return it->second;
  };
  Statement insert = db.prepare(
      "INSERT OR REPLACE INTO facts(e, a, v, tx, valid_from) VALUES (?1, ?2, ?3, 1, ?4)");
  Statement name = db.prepare("INSERT OR IGNORE INTO attribute(id, name) VALUES (?1, ?2)");
  const long long valid_from = now_ms();
  std::ifstream in(path);
  std::string line;
  long long triples = 0;
  db.exec("BEGIN");
  while (std::getline(in, line)) {
    const std::string_view t(line);
    std::size_t pos = t.find('<');
    const long long e = id_of(entities, take_between(t, pos, '>'));
    pos = t.find('<', pos);
    const std::string_view predicate = take_between(t, pos, '>');
    const std::size_t known = attributes.size();
    const long long a = 1000 + id_of(attributes, predicate);
    if (attributes.size() != known) {
      name.bind(1, a);
      name.bind(2, std::string(predicate));
      name.run();
    }
    pos = t.find_first_of("<\"", pos);
    insert.bind(1, e);
    insert.bind(2, a);
    if (t[pos] == '<') {
      insert.bind(3, id_of(entities, take_between(t, pos, '>')));
    } else {
      const std::string_view lexical = take_between(t, pos, '"');
      if (t.substr(pos, 3) == "^^<" && t.substr(pos + 3, kInteger.size()) == kInteger) {
        insert.bind(3, std::stoll(std::string(lexical)));
      } else {
        insert.bind(3, std::string(lexical));
      }
    }
    insert.bind(4, valid_from);
    insert.run();
    ++triples;
  }
  db.exec("COMMIT");
  return triples;
}

}  // namespace

void write_people_ntriples(const std::string& path, long long triples) {
  const long long people = (triples + kTriplesPerPerson - 1) / kTriplesPerPerson;
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) die("cannot write " + path);
  for (long long i = 0; i < people; ++i) {
    const auto person = [&](long long k) { return fmt::format("<{}{}>", kPerson, k); };
    const std::string s = person(i);
    fmt::print(out, "{} <{}> <{}Person> .\n", s, kType, kFoaf);
    fmt::print(out, "{} <{}name> \"Person {}\" .\n", s, kFoaf, i);
    fmt::print(out, "{} <{}age> \"{}\"^^<{}> .\n", s, kFoaf, 20 + i % 60, kInteger);
    fmt::print(out, "{} <{}knows> {} .\n", s, kFoaf, person((i * 7 + 1) % people));
    fmt::print(out, "{} <{}knows> {} .\n", s, kFoaf, person((i * 7 + 2) % people));
  }
  if (std::fclose(out) != 0) die("cannot write " + path);
}

void measure_ntriples_import(long long n, RunContext& ctx) {
  const std::string base = ctx.dir + fmt::format("/import-{}", n);
  const std::string file = base + ".nt";
  write_people_ntriples(file, n);
  const long long triples = (n + kTriplesPerPerson - 1) / kTriplesPerPerson * kTriplesPerPerson;
  const auto record = [&](const std::string& impl, double seconds, long long bytes) {
    JsonObject r;
    r.add("group", "bulk_load").add("workload", "ntriples_import").add("size", triples).add("impl", impl);
    r.add("seconds", seconds).add("facts_per_s", static_cast<double>(triples) / seconds);
    r.add("bytes", bytes).add("bytes_per_fact", static_cast<double>(bytes) / static_cast<double>(triples));
    ctx.results.push_back(r);
    progress(ctx, fmt::format("bulk_load/ntriples_import n={} {}: {:.2f}s ({:.0f} facts/s)", triples,
                              impl, seconds, static_cast<double>(triples) / seconds));
  };
  remove_stores(base);
  {
    Connection ours = open_ours(base);
    // datalog_import reads files in the database's folder only, by name.
    Statement import = ours.prepare("SELECT datalog_import('g', ?1)");
    import.bind(1, file.substr(file.rfind('/') + 1));
    const auto start = Clock::now();
    const long long imported = import.scalar();
    const double seconds = seconds_since(start);
    if (imported != triples) die(fmt::format("datalog_import read {} of {} triples", imported, triples));
    record("exec", seconds, ours_bytes(ours, base));
  }
  {
    Connection plain = open_plain(base);
    const auto start = Clock::now();
    const long long imported = import_plain(plain, file);
    const double seconds = seconds_since(start);
    if (imported != triples) die(fmt::format("the plain importer read {} of {} triples", imported, triples));
    record("sqlite", seconds, plain_bytes(plain, base));
  }
  remove_stores(base);
  std::remove(file.c_str());
}

}  // namespace bench
