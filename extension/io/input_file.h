// extension/io/input_file.h: a file being imported, read line by line without holding it whole.
//
// Every reader of datalog_import (README "Import and export") works on lines: N-Triples and
// JSON Lines are line formats, and the Turtle, CSV and EDN readers scan lines and carry what is
// open (a long string, a quoted field, a form) to the next one. The file knows its line number
// and how many of its bytes were read, for error messages ("datalog_import: data.nt line 17:
// ...") and for the progress line. A line ends at "\n" (a "\r" before it is dropped, and
// noted); lines longer than kMaxLineBytes are refused, so a file with no newline cannot take all
// memory.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "lmdb_store/mdb_status.h"

namespace datalog::ext::io {

using store::Status;
using store::StatusCode;

inline constexpr std::size_t kMaxLineBytes = 64u << 20;

class InputFile {
 public:
  // display_name: how messages name the file (as the caller gave it).
  static Status open(const std::string& path, std::string display_name,
                     std::unique_ptr<InputFile>* out);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // The next line, without its end; false at the end of the file or on an error (see status()).
  bool next_line(std::string* line);
  const Status& status() const { return status_; }

  std::uint64_t line_number() const { return line_number_; }  // of the last line read (1-based)
  // Whether the last line read ended "\r\n": a Turtle long string keeps its line breaks as written.
  bool line_ended_with_cr() const { return line_cr_; }
  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t size() const { return size_; }
  const std::string& display_name() const { return display_name_; }

  // "datalog_import: <file> line <n>: <message>", InvalidArgument.
  Status error_at(std::uint64_t line, std::string_view message) const;
  Status error(std::string_view message) const { return error_at(line_number_, message); }

 private:
  InputFile(std::FILE* file, std::string display_name, std::uint64_t size)
      : file_(file), display_name_(std::move(display_name)), size_(size) {}
  bool fill();

  std::FILE* file_;
  std::string display_name_;
  std::uint64_t size_ = 0, bytes_read_ = 0, line_number_ = 0;
  std::string buffer_;
  std::size_t at_ = 0;
  bool eof_ = false, line_cr_ = false;
  Status status_;
};

}  // namespace datalog::ext::io
