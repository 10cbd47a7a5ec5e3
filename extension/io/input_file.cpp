#include "extension/io/input_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace datalog::ext::io {

namespace {
constexpr std::size_t kReadBytes = 1u << 20;
}

Status InputFile::open(const std::string& path, std::string display_name,
                       std::unique_ptr<InputFile>* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    return Status(StatusCode::CantOpen, fmt::format("datalog_import: cannot open '{}': {}",
                                                    display_name, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(f);
    return Status(StatusCode::CantOpen,
                  fmt::format("datalog_import: '{}' is not a regular file", display_name));
  }
  out->reset(new InputFile(f, std::move(display_name), static_cast<std::uint64_t>(st.st_size)));
  return Status::OK();
}

InputFile::~InputFile() { std::fclose(file_); }

bool InputFile::fill() {
  if (eof_) return false;
  buffer_.erase(0, at_);
  at_ = 0;
  const std::size_t had = buffer_.size();
  buffer_.resize(had + kReadBytes);
  const std::size_t n = std::fread(buffer_.data() + had, 1, kReadBytes, file_);
  buffer_.resize(had + n);
  if (n == 0) {
    eof_ = true;
    if (std::ferror(file_)) {
      status_ = Status(StatusCode::IoError,
                       fmt::format("datalog_import: reading '{}' failed: {}", display_name_,
                                   std::strerror(errno)));
    }
    return false;
  }
  return true;
}

bool InputFile::next_line(std::string* line) {
  if (!status_.ok()) return false;
  std::size_t searched = at_;
  for (;;) {
    const std::size_t nl = buffer_.find('\n', searched);
    if (nl != std::string::npos) {
      line->assign(buffer_, at_, nl - at_);
      bytes_read_ += nl + 1 - at_;
      at_ = nl + 1;
      break;
    }
    if (buffer_.size() - at_ > kMaxLineBytes) {
      status_ = error_at(line_number_ + 1,
                         fmt::format("line longer than {} MiB", kMaxLineBytes >> 20));
      return false;
    }
    searched = buffer_.size() - at_;
    if (!fill()) {
      if (!status_.ok() || at_ >= buffer_.size()) return false;
      line->assign(buffer_, at_, std::string::npos);  // the last line, without a newline
      bytes_read_ += buffer_.size() - at_;
      at_ = buffer_.size();
      break;
    }
    searched += at_;  // fill() moved the unread bytes to the front
  }
  line_cr_ = !line->empty() && line->back() == '\r';
  if (line_cr_) line->pop_back();
  ++line_number_;
  return true;
}

Status InputFile::error_at(std::uint64_t line, std::string_view message) const {
  return Status(StatusCode::InvalidArgument,
                fmt::format("datalog_import: {} line {}: {}", display_name_, line, message));
}

}  // namespace datalog::ext::io
