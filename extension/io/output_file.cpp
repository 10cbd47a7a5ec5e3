#include "extension/io/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace datalog::ext::io {

Status OutputFile::create(const std::string& path, std::string display_name,
                          std::unique_ptr<OutputFile>* out) {
  std::string temp = fmt::format("{}.tmp-{}", path, ::getpid());
  std::FILE* f = std::fopen(temp.c_str(), "wbx");
  if (!f) {
    return Status(StatusCode::CantOpen, fmt::format("datalog_export: cannot create '{}': {}",
                                                    display_name, std::strerror(errno)));
  }
  out->reset(new OutputFile(f, path, std::move(temp), std::move(display_name)));
  return Status::OK();
}

OutputFile::~OutputFile() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
}

void OutputFile::flush() {
  if (buffer_.empty() || failed_) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  written_ += buffer_.size();
  buffer_.clear();
}

Status OutputFile::commit() {
  flush();
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (failed_ || !closed) {
    return Status(StatusCode::IoError, fmt::format("datalog_export: writing '{}' failed: {}",
                                                   display_name_, std::strerror(errno)));
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    return Status(StatusCode::IoError, fmt::format("datalog_export: cannot write '{}': {}",
                                                   display_name_, std::strerror(errno)));
  }
  committed_ = true;
  return Status::OK();
}

}  // namespace datalog::ext::io
