// extension/io/csv_records.h: RFC 4180 records, read from a file line by line and written.
//
// Fields are separated by ',' and may be quoted with '"' (a quote inside doubled); a quoted
// field may hold commas and line breaks, so one record may span lines. Its first line is the
// record's line number in messages.
#pragma once

#include <string>
#include <vector>

#include "extension/io/input_file.h"

namespace datalog::ext::io {

class CsvRecords {
 public:
  explicit CsvRecords(InputFile& file) : file_(file) {}
  // The next record; false at the end of the file or on an error (*error, or the file's status).
  bool next(std::vector<std::string>* fields, Status* error);
  std::uint64_t line() const { return line_; }  // where the last record began

 private:
  InputFile& file_;
  std::uint64_t line_ = 0;
  std::string text_;
};

// Appends one field to a record line being written, quoted when it must be.
void append_csv_field(std::string& line, std::string_view field, bool first);

}  // namespace datalog::ext::io
