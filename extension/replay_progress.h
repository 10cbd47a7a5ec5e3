// extension/replay_progress.h: progress of a long index catch-up or rebuild, in the shell.
//
// Replaying a large log takes a while (a restored database, a deleted index). When it lasts
// more than a second and the process's standard error is a terminal (the sqlite3 shell), one
// line on stderr shows how far it is, rewritten in place at most once a second, and ended when
// the replay is. Nothing is printed for applications whose stderr is not a terminal.
// datalog_import and datalog_export use it too: their work is measured in one unit (bytes of the
// file read) and counted in another (facts), so the line says "42% (120000 facts, 98000
// facts/s)".
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace datalog::ext {

class ReplayProgress {
 public:
  ReplayProgress(std::string what, std::uint64_t total_rows);
  // total: the work in its unit (0: unknown, no percent shown); items: what is counted ("facts").
  ReplayProgress(std::string what, std::uint64_t total, std::string items);
  ~ReplayProgress();  // ends the line, if one was shown
  ReplayProgress(const ReplayProgress&) = delete;
  ReplayProgress& operator=(const ReplayProgress&) = delete;

  void row_done();
  // done of total, and items counted so far (for the second constructor).
  void set_done(std::uint64_t done, std::uint64_t items);

 private:
  void show();

  bool due();

  std::string what_, items_noun_;
  std::uint64_t items_ = 0;
  std::uint64_t total_ = 0, done_ = 0;
  bool terminal_ = false, shown_ = false;
  std::chrono::steady_clock::time_point started_, last_shown_;
};

}  // namespace datalog::ext
