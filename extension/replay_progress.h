// extension/replay_progress.h: progress of a long index catch-up or rebuild, in the shell.
//
// Replaying a large log takes a while (a restored database, a deleted index). When it lasts
// more than a second and the process's standard error is a terminal (the sqlite3 shell), one
// line on stderr shows how far it is, rewritten in place at most once a second, and ended when
// the replay is. Nothing is printed for applications whose stderr is not a terminal.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace datalog::ext {

class ReplayProgress {
 public:
  ReplayProgress(std::string what, std::uint64_t total_rows);
  ~ReplayProgress();  // ends the line, if one was shown
  ReplayProgress(const ReplayProgress&) = delete;
  ReplayProgress& operator=(const ReplayProgress&) = delete;

  void row_done();

 private:
  void show();

  std::string what_;
  std::uint64_t total_ = 0, done_ = 0;
  bool terminal_ = false, shown_ = false;
  std::chrono::steady_clock::time_point started_, last_shown_;
};

}  // namespace datalog::ext
