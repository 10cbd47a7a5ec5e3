// lmdb_store/page_fault_guard.h: LMDB calls that survive a page damaged in place.
//
// LMDB follows the page numbers and offsets it reads from the file without checking them. A
// page damaged in place (a failing disk, another program writing into the file) makes it read
// outside the map (SIGSEGV), past the end of the file (SIGBUS), or fail one of its own
// assertions (abort). The index is derived from the log in SQLite, so such damage must cost a
// rebuild, never the host process.
//
// Every LMDB call that reads pages goes through the mdb:: wrappers below. A fault inside one
// jumps back out of LMDB (sigsetjmp/siglongjmp: LMDB is C, so no destructor is skipped, and the
// wrapper's own frame holds nothing to destroy) and the call returns kPageFault; the
// environment is marked damaged (GraphEnv::damaged), and the next statement replaces it with an
// index rebuilt from the log. What a fault leaves behind (the transaction, the cursor) is only
// ended or closed, never read again.
//
// The handlers for SIGSEGV and SIGBUS are installed once, on first use. A fault outside a
// guarded call is passed to the handler installed before ours, or kills the process as it
// would have without us.
#pragma once

#include <lmdb.h>
#include <setjmp.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string_view>

#include "lmdb_store/mdb_status.h"

namespace datalog::store {

// Returned by a guarded call that faulted. Outside LMDB's own range (-30799..-30780).
inline constexpr int kPageFault = -30000;

namespace fault_detail {

struct Trap {
  sigjmp_buf jump;
  Trap* outer;
};

// Where the signal handler finds this thread's innermost guarded call. Not a thread_local read
// from the handler: in a dlopen'ed library that may allocate. Each thread claims a slot of a
// fixed table once (by pthread_self, which the handler can read), and gives it back when it ends.
struct alignas(64) Slot {
  std::atomic<unsigned long> thread{0};
  std::atomic<Trap*> trap{nullptr};
  // For the stuck-call watchdog (stuck_call_watchdog.h): guarded calls begun by this thread (the
  // serial of the one in flight), whether that one is watched, and the serial it stopped.
  std::atomic<std::uint64_t> calls{0};
  std::atomic<bool> watched{false};
  std::atomic<std::uint64_t> kicked{0};
};
Slot* this_thread_slot();  // null when every slot is taken: calls then run unguarded
// The fixed table of slots, and the lock under which a slot is given back when its thread ends.
Slot* slot_table(std::size_t* count);
std::mutex& slot_mutex();
// The value the stuck-call watchdog queues with its SIGBUS (pthread_sigqueue), which tells its
// signal from a fault's.
const void* watchdog_kick_marker();

void install_handlers();
void note_fault(MDB_env* env);  // marks the environment damaged
// False (and the environment marked damaged) when a value LMDB handed back points past the end
// of the file's pages.
bool within_file(MDB_env* env, const MDB_val* key, const MDB_val* data);

inline bool damage_code(int rc) { return rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND; }

}  // namespace fault_detail

// Whether the watchdog may stop a call that runs too long: not commits and drops, which may
// rightly write or free gigabytes.
enum class Watch { Yes, No };

// Runs call() (one LMDB call on env) so that a fault in it returns kPageFault. slot is this
// thread's (fault_detail::this_thread_slot()): a loop of many calls looks it up once.
template <class Call>
int guarded_in(fault_detail::Slot* slot, MDB_env* env, const Call& call, Watch watch = Watch::Yes) {
  if (slot == nullptr) return call();
  fault_detail::Trap trap;
  trap.outer = slot->trap.load(std::memory_order_relaxed);
  if (sigsetjmp(trap.jump, 0) != 0) {
    slot->trap.store(trap.outer, std::memory_order_relaxed);
    fault_detail::note_fault(env);
    return kPageFault;
  }
  // Only this thread writes its slot's serial: a load and a store, no atomic read-modify-write.
  slot->calls.store(slot->calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  slot->watched.store(watch == Watch::Yes, std::memory_order_relaxed);
  slot->trap.store(&trap, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const int rc = call();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  slot->trap.store(trap.outer, std::memory_order_relaxed);
  if (fault_detail::damage_code(rc)) fault_detail::note_fault(env);
  return rc;
}

template <class Call>
int guarded(MDB_env* env, const Call& call, Watch watch = Watch::Yes) {
  return guarded_in(fault_detail::this_thread_slot(), env, call, watch);
}

// Damage found by our own checks of what LMDB read (a key that does not decode, a long value
// that is missing): the environment is marked damaged as after a fault, and the status says so.
Status index_damage(MDB_txn* txn, std::string_view what);

// LMDB's assertion hook: inside a guarded call, the failed assertion becomes a fault (LMDB would
// print it and abort()). Set on every environment.
void on_lmdb_assert(MDB_env* env, const char* message);

namespace mdb {

inline MDB_env* env_of(MDB_txn* txn) { return mdb_txn_env(txn); }
inline MDB_env* env_of(MDB_cursor* cursor) { return mdb_txn_env(mdb_cursor_txn(cursor)); }

// A scan's step: the thread's slot and the cursor's environment given, as a scan keeps them.
inline int cursor_get_in(fault_detail::Slot* slot, MDB_env* env, MDB_cursor* c, MDB_val* key,
                         MDB_val* data, MDB_cursor_op op) {
  const int rc = guarded_in(slot, env, [&] { return mdb_cursor_get(c, key, data, op); });
  return rc == MDB_SUCCESS && !fault_detail::within_file(env, key, data) ? kPageFault : rc;
}
inline int cursor_get(MDB_cursor* c, MDB_val* key, MDB_val* data, MDB_cursor_op op) {
  return cursor_get_in(fault_detail::this_thread_slot(), env_of(c), c, key, data, op);
}
inline int cursor_put(MDB_cursor* c, MDB_val* key, MDB_val* data, unsigned flags) {
  return guarded(env_of(c), [&] { return mdb_cursor_put(c, key, data, flags); });
}
inline int cursor_del(MDB_cursor* c, unsigned flags) {
  return guarded(env_of(c), [&] { return mdb_cursor_del(c, flags); });
}
inline int get(MDB_txn* txn, MDB_dbi dbi, MDB_val* key, MDB_val* data) {
  MDB_env* env = env_of(txn);
  const int rc = guarded(env, [&] { return mdb_get(txn, dbi, key, data); });
  return rc == MDB_SUCCESS && !fault_detail::within_file(env, nullptr, data) ? kPageFault : rc;
}
inline int put(MDB_txn* txn, MDB_dbi dbi, MDB_val* key, MDB_val* data, unsigned flags) {
  MDB_env* env = env_of(txn);
  const int rc = guarded(env, [&] { return mdb_put(txn, dbi, key, data, flags); });
  // MDB_NOOVERWRITE hands back the data already stored.
  return rc == MDB_KEYEXIST && !fault_detail::within_file(env, nullptr, data) ? kPageFault : rc;
}
inline int del(MDB_txn* txn, MDB_dbi dbi, MDB_val* key, MDB_val* data) {
  return guarded(env_of(txn), [&] { return mdb_del(txn, dbi, key, data); });
}
inline int drop(MDB_txn* txn, MDB_dbi dbi, int del) {
  return guarded(env_of(txn), [&] { return mdb_drop(txn, dbi, del); }, Watch::No);
}
inline int stat(MDB_txn* txn, MDB_dbi dbi, MDB_stat* out) {
  return guarded(env_of(txn), [&] { return mdb_stat(txn, dbi, out); });
}
inline int dbi_open(MDB_txn* txn, const char* name, unsigned flags, MDB_dbi* dbi) {
  return guarded(env_of(txn), [&] { return mdb_dbi_open(txn, name, flags, dbi); });
}
// Opening a cursor reads pages too: each transaction looks a named table's root up again in the
// main table (LMDB's DB_STALE), where a damaged record trips an assertion. mdb_stat makes the same
// look-up on a cursor of its own stack, so it goes first, guarded: a fault inside
// mdb_cursor_open would leak the cursor it had just allocated.
inline int cursor_open(MDB_txn* txn, MDB_dbi dbi, MDB_cursor** cursor) {
  MDB_stat unused;
  const int rc = stat(txn, dbi, &unused);
  return rc == MDB_SUCCESS ? mdb_cursor_open(txn, dbi, cursor) : rc;
}
// A commit that faulted (saving the free list reads pages) did not end its transaction: it is
// aborted here, so LMDB's writer lock is released as on any failed commit.
int txn_commit(MDB_txn* txn);

}  // namespace mdb
}  // namespace datalog::store
