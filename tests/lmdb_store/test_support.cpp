#include "test_support.h"

#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "lmdb_store/datom_scan.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/write_txn.h"

namespace datalog::store::testing {

namespace {

constexpr std::size_t kRunawayScan = 1'000'000;
constexpr auto kTestBusyTimeout = std::chrono::milliseconds(5'000);
constexpr std::size_t kShownTextBytes = 24;

std::string temp_root() {
  const char* tmp = std::getenv("TMPDIR");
  return (tmp && *tmp) ? tmp : "/tmp";
}

std::string_view op_name(Op op) {
  switch (op) {
    case Op::Retract:
      return "retract";
    case Op::Assert:
      return "assert";
    case Op::Reassert:
      return "reassert";
  }
  return "?";
}

// A value as text; long texts are shortened to their start, length and giant hash.
std::string value_text(const Value& v) {
  if (is_giant(v)) {
    std::string head;
    const std::string& text = v.is(ValueKind::String)    ? v.as_string()
                              : v.is(ValueKind::Keyword) ? v.as_keyword()
                                                         : v.as_bytes();
    for (unsigned char c : text.substr(0, kShownTextBytes)) head += fmt::format("{:02x}", c);
    return fmt::format("{}[{} bytes {}.. hash {}]", kind_name(v.kind()), text.size(), head,
                       hash_hex(giant_hash(v)));
  }
  if (v.is(ValueKind::Float)) {  // exact bits; -0.0 and 0.0 are one value
    const double d = v.as_float() == 0.0 ? 0.0 : v.as_float();
    return fmt::format("float {:a}", d);
  }
  if (v.is(ValueKind::String)) {  // hex: strings may hold any byte
    std::string hex;
    for (unsigned char c : v.as_string()) hex += fmt::format("{:02x}", c);
    return fmt::format("string[{}]", hex);
  }
  return v.to_edn();
}

}  // namespace

TempDir::TempDir() {
  std::string pattern = temp_root() + "/store_tests.XXXXXX";
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  // A read-only test may have removed write permission; restore it so removal works.
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(path_, ec);
}

std::string_view code_name(StatusCode code) {
  switch (code) {
    case StatusCode::Ok:
      return "Ok";
    case StatusCode::Busy:
      return "Busy";
    case StatusCode::Full:
      return "Full";
    case StatusCode::MapFull:
      return "MapFull";
    case StatusCode::MapGrown:
      return "MapGrown";
    case StatusCode::NotAGraph:
      return "NotAGraph";
    case StatusCode::TooNew:
      return "TooNew";
    case StatusCode::ReadOnly:
      return "ReadOnly";
    case StatusCode::CantOpen:
      return "CantOpen";
    case StatusCode::Corrupt:
      return "Corrupt";
    case StatusCode::InvalidArgument:
      return "InvalidArgument";
    case StatusCode::Misuse:
      return "Misuse";
    case StatusCode::IoError:
      return "IoError";
    case StatusCode::Interrupted:
      return "Interrupted";
    case StatusCode::Internal:
      return "Internal";
  }
  return "?";
}

std::string describe(const Status& status) {
  return fmt::format("{}: {}", code_name(status.code()), status.message());
}

void require_ok(const Status& st) {
  INFO(describe(st));
  REQUIRE(st.ok());
}

std::shared_ptr<GraphEnv> open_graph(const std::string& path, const OpenOptions& options) {
  std::shared_ptr<GraphEnv> env;
  const Status st = GraphEnv::open(path, options, &env);
  INFO(describe(st));
  REQUIRE(st.ok());
  REQUIRE(env != nullptr);
  return env;
}

ReadSnapshot::ReadSnapshot(GraphEnv& env) : env_(env) {
  const Status st = env_.begin_read(&txn_);
  INFO(describe(st));
  REQUIRE(st.ok());
}

ReadSnapshot::~ReadSnapshot() {
  if (txn_) env_.end_read(txn_);
}

TimeView any_time(std::uint64_t as_of) {
  TimeView view;
  view.as_of = as_of;
  view.any_valid_time = true;
  return view;
}

TimeView valid_at(std::int64_t instant, std::uint64_t as_of) {
  TimeView view;
  view.as_of = as_of;
  view.any_valid_time = false;
  view.valid_at = instant;
  return view;
}

std::vector<Datom> scan(const GraphEnv& env, MDB_txn* txn, IndexId index, std::string start,
                        std::string end, const TimeView& view) {
  DatomScan s;
  Status st = s.start(env, txn, index, std::move(start), std::move(end), view);
  std::vector<Datom> out;
  while (st.ok() && !s.at_end()) {
    out.push_back(s.datom());
    if (out.size() > kRunawayScan) {
      FAIL("a scan of " << index_name(index) << " yielded more than " << kRunawayScan
                        << " datoms; it does not end");
    }
    st = s.next();
  }
  INFO(describe(st));
  REQUIRE(st.ok());
  return out;
}

std::vector<Datom> scan_all(const GraphEnv& env, MDB_txn* txn, IndexId index,
                            const TimeView& view) {
  return scan(env, txn, index, "", "", view);
}

std::vector<Datom> scan_prefix(const GraphEnv& env, MDB_txn* txn, IndexId index,
                               const std::string& prefix, const TimeView& view) {
  return scan(env, txn, index, prefix, prefix_successor(prefix), view);
}

void for_each_key(MDB_txn* txn, MDB_dbi dbi, const std::function<void(std::string_view)>& each) {
  MDB_cursor* cursor = nullptr;
  REQUIRE(mdb_cursor_open(txn, dbi, &cursor) == MDB_SUCCESS);
  MDB_val k, v;
  int rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST);
  while (rc == MDB_SUCCESS) {
    each(std::string_view(static_cast<const char*>(k.mv_data), k.mv_size));
    rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  REQUIRE(rc == MDB_NOTFOUND);
}

std::string datom_text(const Datom& d) {
  const std::string vt = d.valid_to == kForever ? "forever" : std::to_string(d.valid_to);
  return fmt::format("[e {} a {} v {} tx {} {} valid {}..{}]", d.e, d.a, value_text(d.v), d.tx,
                     op_name(d.op), d.valid_from, vt);
}

std::vector<std::string> as_text(const std::vector<Datom>& datoms) {
  std::vector<std::string> out;
  out.reserve(datoms.size());
  for (const Datom& d : datoms) out.push_back(datom_text(d));
  return out;
}

std::vector<std::string> as_sorted_text(const std::vector<Datom>& datoms) {
  std::vector<std::string> out = as_text(datoms);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> committed_datoms(GraphEnv& env) {
  ReadSnapshot r(env);
  return as_sorted_text(scan_all(env, r.txn(), IndexId::Eavt, any_time()));
}

std::optional<TxInfo> committed_tx_info(GraphEnv& env, std::uint64_t tx) {
  ReadSnapshot r(env);
  std::optional<TxInfo> info;
  require_ok(read_tx_info(r.txn(), env.tables(), tx, &info));
  return info;
}

std::unique_ptr<WriteTxn> begin_write(const std::shared_ptr<GraphEnv>& env) {
  std::unique_ptr<WriteTxn> w;
  const Status st = WriteTxn::begin(env, kTestBusyTimeout, &w);
  INFO(describe(st));
  REQUIRE(st.ok());
  return w;
}

std::uint64_t commit_facts(const std::shared_ptr<GraphEnv>& env, const std::vector<Datom>& facts) {
  std::unique_ptr<WriteTxn> w = begin_write(env);
  Status st;
  for (const Datom& d : facts) {
    st = d.op == Op::Retract ? w->retract_fact(d.e, d.a, d.v)
                             : w->assert_fact(d.e, d.a, d.v, d.valid_from, d.valid_to);
    INFO(describe(st));
    REQUIRE(st.ok());
  }
  const std::uint64_t tx = w->tx();
  st = w->commit();
  INFO(describe(st));
  REQUIRE(st.ok());
  return tx;
}

Pipe::Pipe() {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  read_fd_ = fds[0];
  write_fd_ = fds[1];
}

Pipe::~Pipe() {
  close_read();
  close_write();
}

void Pipe::close_read() {
  if (read_fd_ >= 0) ::close(read_fd_);
  read_fd_ = -1;
}

void Pipe::close_write() {
  if (write_fd_ >= 0) ::close(write_fd_);
  write_fd_ = -1;
}

bool Pipe::send(std::string_view line) {
  std::string data(line);
  data += '\n';
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(write_fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> Pipe::receive() {
  while (true) {
    const std::size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    char chunk[4096];
    const ssize_t n = ::read(read_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::string Pipe::receive_all() {
  while (true) {
    char chunk[4096];
    const ssize_t n = ::read(read_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
  return std::exchange(buffer_, {});
}

pid_t fork_child(const std::function<int()>& body, unsigned timeout_seconds) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid > 0) return pid;
  ::alarm(timeout_seconds);  // a stuck child dies instead of hanging the test run
  int code = 101;
  try {
    code = body();
  } catch (...) {
  }
  ::_exit(code);
}

int wait_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) FAIL("waitpid failed: " << std::strerror(errno));
  }
  return status;
}

std::string run_in_child(const std::function<std::string()>& body) {
  Pipe pipe;
  const pid_t pid = fork_child([&] {
    pipe.close_read();
    const std::string result = body();
    return pipe.send(result) ? 0 : 102;
  });
  pipe.close_write();
  std::string out = pipe.receive_all();
  const int status = wait_child(pid);
  INFO("child output: " << out);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace datalog::store::testing
