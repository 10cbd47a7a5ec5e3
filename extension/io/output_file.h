// extension/io/output_file.h: the file datalog_export writes, whole or not at all.
//
// It is written as "<path>.tmp-<pid>" beside the target, through a buffer, and renamed over the
// target by commit(): an export that fails (an error, an interrupt, a full disk) leaves no
// partial file, and a reader of the target sees the old file or the new one.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "lmdb_store/mdb_status.h"

namespace datalog::ext::io {

using store::Status;
using store::StatusCode;

class OutputFile {
 public:
  static Status create(const std::string& path, std::string display_name,
                       std::unique_ptr<OutputFile>* out);
  ~OutputFile();  // removes the temporary file unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kFlushBytes) flush();
  }
  std::uint64_t bytes_written() const { return written_ + buffer_.size(); }
  Status commit();

 private:
  static constexpr std::size_t kFlushBytes = 1u << 20;
  OutputFile(std::FILE* f, std::string path, std::string temp, std::string display_name)
      : file_(f), path_(std::move(path)), temp_(std::move(temp)), display_name_(std::move(display_name)) {}
  void flush();

  std::FILE* file_;
  std::string path_, temp_, display_name_;
  std::string buffer_;
  std::uint64_t written_ = 0;
  bool failed_ = false, committed_ = false;
};

}  // namespace datalog::ext::io
