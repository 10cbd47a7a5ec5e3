#include "extension/io/import_csv.h"

#include <fmt/format.h>

#include "engine/time_text.h"
#include "extension/io/csv_records.h"
#include "extension/io/typed_text.h"
#include "extension/sql_values.h"

namespace datalog::ext::io {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A bare name becomes a keyword (':name'); ':name' stays.
std::optional<Value> keyword_of_name(std::string_view name) {
  const std::string text = name.starts_with(':') ? std::string(name) : fmt::format(":{}", name);
  if (!is_keyword_text(text)) return std::nullopt;
  return Value::keyword(text);
}

class CsvImport {
 public:
  explicit CsvImport(ImportTarget& target) : target_(target), file_(target.file()), records_(file_) {}

  Status run() {
    std::vector<std::string> header, row;
    Status error;
    if (!records_.next(&header, &error)) {
      return error.ok() ? file_.error_at(1, "the file is empty (a CSV file begins with its header)") : error;
    }
    DATALOG_RETURN_IF_ERROR(read_header(header));
    while (records_.next(&row, &error)) {
      if (row.size() != header.size()) {
        return at_row(fmt::format("the row has {} fields, the header {}", row.size(), header.size()));
      }
      DATALOG_RETURN_IF_ERROR(facts_mode_ ? fact_row(row) : entity_row(row, header));
      DATALOG_RETURN_IF_ERROR(target_.entity_done());
    }
    return error;
  }

 private:
  Status at_row(std::string_view message) const { return file_.error_at(records_.line(), message); }

  Status read_header(const std::vector<std::string>& header) {
    facts_mode_ = header.size() >= 3 && lower(header[0]) == "e" && lower(header[1]) == "a" &&
                  lower(header[2]) == "v";
    if (facts_mode_) {
      for (std::size_t i = 3; i < header.size(); ++i) {
        const std::string name = lower(header[i]);
        if (name == "vtype") vtype_column_ = i;
        else if (name == "valid_from") from_column_ = i;
        else if (name == "valid_to") to_column_ = i;
        else return at_row(fmt::format("unknown column '{}' (after e,a,v: vtype, valid_from, valid_to)", header[i]));
      }
      return Status::OK();
    }
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == ":db/id" || header[i] == "db/id") entity_column_ = i;
    }
    attributes_.resize(header.size());
    kinds_.resize(header.size());
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (i == entity_column_) continue;
      std::string_view name = header[i];
      kinds_[i] = column_type(&name);
      auto a = keyword_of_name(name);
      if (!a) return at_row(fmt::format("column '{}' is not an attribute name", header[i]));
      attributes_[i] = std::move(*a);
    }
    return Status::OK();
  }

  // `attr:vtype` (age:integer, :person/score:float): the type after the last ':' when it is a
  // vtype name and that ':' is not the leading one; *name is then the attribute before it.
  static std::optional<ValueKind> column_type(std::string_view* name) {
    const std::size_t colon = name->rfind(':');
    if (colon == 0 || colon == std::string_view::npos) return std::nullopt;
    const auto kind = kind_from_name(name->substr(colon + 1));
    if (kind) *name = name->substr(0, colon);
    return kind;
  }

  Status entity(std::string_view text, Value* out) const {
    auto e = entity_from_text(text);
    if (!e) e = keyword_of_name(text);
    if (!e) return at_row(fmt::format("'{}' does not name an entity", text));
    *out = std::move(*e);
    return Status::OK();
  }

  Status time_of(const std::string& text, std::string_view column, std::optional<std::int64_t>* out) const {
    if (text.empty()) return Status::OK();
    std::string error;
    std::optional<Value> v;
    DATALOG_RETURN_IF_ERROR(typed_value(text, ValueKind::Instant, target_.writer(), &v, &error));
    if (!v) return at_row(fmt::format("{}: {}", column, error));
    *out = v->as_instant();
    return Status::OK();
  }

  // A cell read as the store table reads v with a vtype; column: named in the message, if any.
  Status typed_cell(std::string_view text, ValueKind kind, std::string_view column, Value* out) const {
    std::optional<Value> v;
    std::string error;
    DATALOG_RETURN_IF_ERROR(typed_value(text, kind, target_.writer(), &v, &error));
    if (!v) return at_row(column.empty() ? error : fmt::format("column '{}': {}", column, error));
    *out = std::move(*v);
    return Status::OK();
  }

  Status fact_row(const std::vector<std::string>& row) {
    ast::Fact f;
    f.pos = ast::SourcePos{static_cast<int>(records_.line()), 1};
    DATALOG_RETURN_IF_ERROR(entity(row[0], &f.e));
    auto a = keyword_of_name(row[1]);
    if (!a) return at_row(fmt::format("'{}' is not an attribute keyword", row[1]));
    f.a = std::move(*a);
    if (vtype_column_ && !row[*vtype_column_].empty()) {
      const auto kind = kind_from_name(row[*vtype_column_]);
      if (!kind) {
        return at_row(fmt::format("unknown vtype '{}' (one of {})", row[*vtype_column_], kind_names_list()));
      }
      DATALOG_RETURN_IF_ERROR(typed_cell(row[2], *kind, "", &f.v));
    } else {
      f.v = infer_value(row[2]);
    }
    if (from_column_) DATALOG_RETURN_IF_ERROR(time_of(row[*from_column_], "valid_from", &f.valid_from));
    if (to_column_) DATALOG_RETURN_IF_ERROR(time_of(row[*to_column_], "valid_to", &f.valid_to));
    target_.add(std::move(f));
    return Status::OK();
  }

  Status entity_row(const std::vector<std::string>& row, const std::vector<std::string>& header) {
    Value e;
    if (row[entity_column_].empty()) return at_row(fmt::format("no entity in column '{}'", header[entity_column_]));
    DATALOG_RETURN_IF_ERROR(entity(row[entity_column_], &e));
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i == entity_column_ || row[i].empty()) continue;
      ast::Fact f;
      f.pos = ast::SourcePos{static_cast<int>(records_.line()), 1};
      f.e = e;
      f.a = attributes_[i];
      if (kinds_[i]) {
        DATALOG_RETURN_IF_ERROR(typed_cell(row[i], *kinds_[i], header[i], &f.v));
      } else {
        f.v = infer_value(row[i]);
      }
      target_.add(std::move(f));
    }
    return Status::OK();
  }

  ImportTarget& target_;
  InputFile& file_;
  CsvRecords records_;
  bool facts_mode_ = false;
  std::optional<std::size_t> vtype_column_, from_column_, to_column_;
  std::size_t entity_column_ = 0;
  std::vector<Value> attributes_;
  std::vector<std::optional<ValueKind>> kinds_;  // of typed columns (attr:vtype); else inferred
};

}  // namespace

Status import_csv(ImportTarget& target) { return CsvImport(target).run(); }

}  // namespace datalog::ext::io
