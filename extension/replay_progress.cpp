#include "extension/replay_progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace datalog::ext {

namespace {
constexpr auto kInterval = std::chrono::seconds(1);
}

ReplayProgress::ReplayProgress(std::string what, std::uint64_t total_rows)
    : what_(std::move(what)),
      total_(total_rows),
      terminal_(::isatty(STDERR_FILENO) == 1),
      started_(std::chrono::steady_clock::now()),
      last_shown_(started_) {}

ReplayProgress::~ReplayProgress() {
  if (!shown_) return;
  show();
  std::fputs("\n", stderr);
}

void ReplayProgress::row_done() {
  ++done_;
  if (!terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_shown_ < kInterval) return;
  last_shown_ = now;
  show();
}

void ReplayProgress::show() {
  shown_ = true;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double percent = total_ ? 100.0 * static_cast<double>(done_) / static_cast<double>(total_) : 100.0;
  const std::string line = fmt::format("\rdatalog: {}: {:.0f}% ({} of {} log rows, {:.0f} rows/s)",
                                       what_, percent, done_, total_,
                                       seconds > 0 ? static_cast<double>(done_) / seconds : 0.0);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace datalog::ext
