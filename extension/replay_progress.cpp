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

ReplayProgress::ReplayProgress(std::string what, std::uint64_t total, std::string items)
    : ReplayProgress(std::move(what), total) {
  items_noun_ = std::move(items);
}

ReplayProgress::~ReplayProgress() {
  if (!shown_) return;
  show();
  std::fputs("\n", stderr);
}

bool ReplayProgress::due() {
  if (!terminal_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_shown_ < kInterval) return false;
  last_shown_ = now;
  return true;
}

void ReplayProgress::row_done() {
  ++done_;
  if (due()) show();
}

void ReplayProgress::set_done(std::uint64_t done, std::uint64_t items) {
  done_ = done;
  items_ = items;
  if (due()) show();
}

void ReplayProgress::show() {
  shown_ = true;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double percent = total_ ? 100.0 * static_cast<double>(done_) / static_cast<double>(total_) : 100.0;
  if (!items_noun_.empty()) {
    const double rate = seconds > 0 ? static_cast<double>(items_) / seconds : 0.0;
    const std::string line =
        total_ ? fmt::format("\rdatalog: {}: {:.0f}% ({} {}, {:.0f} {}/s)", what_, percent, items_,
                             items_noun_, rate, items_noun_)
               : fmt::format("\rdatalog: {}: {} {} ({:.0f} {}/s)", what_, items_, items_noun_, rate,
                             items_noun_);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    return;
  }
  const std::string line = fmt::format("\rdatalog: {}: {:.0f}% ({} of {} log rows, {:.0f} rows/s)",
                                       what_, percent, done_, total_,
                                       seconds > 0 ? static_cast<double>(done_) / seconds : 0.0);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace datalog::ext
