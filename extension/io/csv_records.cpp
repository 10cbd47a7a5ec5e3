#include "extension/io/csv_records.h"

namespace datalog::ext::io {

bool CsvRecords::next(std::vector<std::string>* fields, Status* error) {
  fields->clear();
  do {
    if (!file_.next_line(&text_)) {
      *error = file_.status();
      return false;
    }
  } while (text_.empty());  // blank lines hold no record
  line_ = file_.line_number();
  std::string field;
  bool quoted = false, was_quoted = false;
  std::size_t i = 0;
  for (;;) {
    if (i >= text_.size()) {
      if (!quoted) break;
      // A line break inside a quoted field: the record goes on on the next line.
      if (!file_.next_line(&text_)) {
        *error = file_.status().ok()
                     ? file_.error_at(line_, "unterminated quoted field (the file ends inside it)")
                     : file_.status();
        return false;
      }
      field += '\n';
      i = 0;
      continue;
    }
    const char c = text_[i++];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i < text_.size() && text_[i] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == ',') {
      fields->push_back(std::move(field));
      field.clear();
      was_quoted = false;
    } else if (c == '"' && field.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (was_quoted) {
      *error = file_.error(R"(text after a quoted field's closing quote (a quote inside a field is written "")");
      return false;
    } else {
      field += c;
    }
  }
  fields->push_back(std::move(field));
  return true;
}

void append_csv_field(std::string& line, std::string_view field, bool first) {
  if (!first) line += ',';
  if (field.find_first_of(",\"\n\r") == std::string_view::npos && !field.empty()) {
    line.append(field);
    return;
  }
  if (field.empty()) return;  // an empty field: nothing between the commas
  line += '"';
  for (const char c : field) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

}  // namespace datalog::ext::io
