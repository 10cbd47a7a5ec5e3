#include "storage_measures.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "fixtures.h"
#include "stores.h"

namespace bench {

void measure_fsync_floor(RunContext& ctx) {
  const std::string path = ctx.dir + "/fsync-probe";
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
  if (fd < 0) die("cannot create " + path);
  char page[4096] = {};
  long long counter = 0;
  auto write_page = [&] {
    page[0] = static_cast<char>(++counter);
    if (::pwrite(fd, page, sizeof page, 0) != static_cast<ssize_t>(sizeof page)) die("pwrite failed");
  };
  const Timing datasync = measure(
      [&] {
        write_page();
        ::fdatasync(fd);
        return 1LL;
      },
      ctx.writes);
  const Timing full = measure(
      [&] {
        write_page();
        ::fsync(fd);
        return 1LL;
      },
      ctx.writes);
  ::close(fd);
  ::unlink(path.c_str());
  ctx.results.push_back(timing_record("fsync", "pwrite_4k_fdatasync", 0, "os", datasync));
  ctx.results.push_back(timing_record("fsync", "pwrite_4k_fsync", 0, "os", full));
  progress(ctx, fmt::format("fsync floor: fdatasync {:.1f}us fsync {:.1f}us", datasync.median_us,
                            full.median_us));
}

void measure_commit_io(const std::string& workload, double pages, long long n, RunContext& ctx) {
  constexpr long long kFilePages = 4096;  // 16 MiB: the writes land on allocated blocks
  const std::string path = ctx.dir + "/commit-probe";
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
  const int meta_fd = fd < 0 ? -1 : ::open(path.c_str(), O_RDWR | O_DSYNC);
  if (fd < 0 || meta_fd < 0) die("cannot create " + path);
  char page[4096] = {};
  for (long long i = 0; i < kFilePages; ++i) {
    if (::pwrite(fd, page, sizeof page, i * 4096) != static_cast<ssize_t>(sizeof page)) die("pwrite failed");
  }
  ::fsync(fd);
  const long long count = std::max(1LL, std::llround(pages));
  unsigned long long next = 88172645463325252ULL;  // xorshift: scattered pages, same every run
  std::vector<off_t> offsets(static_cast<std::size_t>(count));
  const Timing t = measure(
      [&] {
        for (off_t& at : offsets) {
          next ^= next << 13, next ^= next >> 7, next ^= next << 17;
          at = static_cast<off_t>(2 + next % (kFilePages - 2)) * 4096;
        }
        std::sort(offsets.begin(), offsets.end());  // LMDB writes its dirty pages in page order
        for (const off_t at : offsets) {
          if (::pwrite(fd, page, sizeof page, at) != static_cast<ssize_t>(sizeof page)) die("pwrite failed");
        }
        ::fdatasync(fd);
        if (::pwrite(meta_fd, page, 120, 32) != 120) die("pwrite failed");
        return 1LL;
      },
      ctx.writes);
  ::close(meta_fd);
  ::close(fd);
  ::unlink(path.c_str());
  JsonObject record = timing_record("fsync", workload, n, "os", t);
  record.add("pages", count);
  ctx.results.push_back(record);
  progress(ctx, fmt::format("{}: the I/O of {} pages without LMDB, n={}: {:.1f}us", workload, count, n,
                            t.median_us));
}

void measure_open(const std::string& base, long long n, RunContext& ctx) {
  const Timing ours = measure(
      [&] {
        Connection db(ours_db_path(base), true);
        Statement read = db.prepare("SELECT v FROM g WHERE e = ':e0' AND a = ':val'");
        return read.run();
      },
      ctx.reads);
  const Timing plain = measure(
      [&] {
        Connection db(plain_db_path(base), false);
        Statement read = db.prepare("SELECT v FROM facts WHERE e = 0 AND a = 1");
        return read.run();
      },
      ctx.reads);
  ctx.results.push_back(timing_record("open", "existing_graph", n, "exec", ours));
  ctx.results.push_back(timing_record("open", "existing_graph", n, "sqlite", plain));
  progress(ctx, fmt::format("open n={}: ours {:.1f}us sqlite {:.1f}us", n, ours.median_us,
                            plain.median_us));
}

void measure_bulk_load(long long n, RunContext& ctx) {
  const Fixture f = populate(n);
  const auto record = [&](const std::string& name, const std::string& impl, double seconds,
                          long long bytes) {
    JsonObject r;
    r.add("group", "bulk_load").add("workload", name).add("size", n).add("impl", impl);
    r.add("seconds", seconds).add("facts_per_s", static_cast<double>(n) / seconds);
    r.add("bytes", bytes).add("bytes_per_fact", static_cast<double>(bytes) / static_cast<double>(n));
    ctx.results.push_back(r);
    progress(ctx, fmt::format("bulk_load/{} n={} {}: {:.2f}s ({:.0f} facts/s, {:.1f} B/fact)", name,
                              n, impl, seconds, static_cast<double>(n) / seconds,
                              static_cast<double>(bytes) / static_cast<double>(n)));
  };

  const std::string base = ctx.dir + fmt::format("/bulk-{}", n);
  remove_stores(base);
  {
    Connection ours = open_ours(base);
    Statement insert = ours.prepare("INSERT INTO g(e, a, v) VALUES (?1, ':val', ?2)");
    const auto start = Clock::now();
    ours.exec("BEGIN");
    for (const Fact& fact : f.facts) {
      insert.bind(1, fact.e.ident);
      insert.bind(2, std::get<long long>(fact.v));
      insert.run();
    }
    ours.exec("COMMIT");
    const double seconds = seconds_since(start);
    record("one_transaction_insert", "exec", seconds, ours_bytes(ours, base));
    // The index made again from the log of the same facts (issue 18: at most twice the load).
    Statement rebuild = ours.prepare("SELECT datalog_rebuild('g')");
    const auto rebuild_start = Clock::now();
    const long long rows = rebuild.scalar();
    const double rebuild_seconds = seconds_since(rebuild_start);
    if (rows < 1) die("datalog_rebuild replayed no log rows");
    record("rebuild_index", "exec", rebuild_seconds, ours_bytes(ours, base));
  }
  remove_stores(base);
  {
    Connection ours = open_ours(base);
    Fixture big = f;
    big.batch = 1000;
    const double seconds = load_ours(ours, big, n);
    record("one_transaction_transact", "exec", seconds, ours_bytes(ours, base));
  }
  {
    Connection plain = open_plain(base);
    const double seconds = load_plain(plain, f, n);
    record("one_transaction_insert", "sqlite", seconds, plain_bytes(plain, base));
  }
  remove_stores(base);
}

}  // namespace bench
