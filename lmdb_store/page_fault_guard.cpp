#include "lmdb_store/page_fault_guard.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <mutex>

#include <fmt/format.h>

#include "lmdb_store/graph_env.h"

namespace datalog::store {
namespace fault_detail {
namespace {

constexpr std::size_t kSlots = 1024;
Slot slots[kSlots];

struct sigaction previous_segv {}, previous_bus {};

unsigned long self() { return static_cast<unsigned long>(pthread_self()); }

std::size_t home(unsigned long thread) { return (thread >> 12) % kSlots; }

Slot* claim_slot() {
  const unsigned long me = self();
  for (std::size_t i = 0, at = home(me); i < kSlots; ++i, at = (at + 1) % kSlots) {
    unsigned long expected = 0;
    if (slots[at].thread.compare_exchange_strong(expected, me)) return &slots[at];
  }
  return nullptr;
}

// Holds this thread's slot, and gives it back when the thread ends.
struct SlotOwner {
  Slot* slot;
  SlotOwner() : slot(claim_slot()) { install_handlers(); }
  ~SlotOwner() {
    if (slot == nullptr) return;
    std::lock_guard<std::mutex> lock(slot_mutex());  // the watchdog may be about to signal us
    slot->thread.store(0);
  }
};

Slot* slot_of_this_thread() {
  const unsigned long me = self();
  for (std::size_t i = 0, at = home(me); i < kSlots; ++i, at = (at + 1) % kSlots) {
    if (slots[at].thread.load(std::memory_order_relaxed) == me) return &slots[at];
  }
  return nullptr;
}

Trap* trap_of_this_thread() {
  Slot* slot = slot_of_this_thread();
  return slot ? slot->trap.load(std::memory_order_relaxed) : nullptr;
}

// SIGBUS queued by the stuck-call watchdog of this process rather than raised by a fault.
bool is_watchdog_kick(int sig, const siginfo_t* info) {
  return sig == SIGBUS && info != nullptr && info->si_code == SI_QUEUE && info->si_pid == ::getpid() &&
         info->si_value.sival_ptr == watchdog_kick_marker();
}

void pass_on(int sig, siginfo_t* info, void* context) {
  struct sigaction& previous = sig == SIGSEGV ? previous_segv : previous_bus;
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != nullptr) {
      previous.sa_sigaction(sig, info, context);
      return;
    }
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
             previous.sa_handler != nullptr) {
    previous.sa_handler(sig);
    return;
  }
  // Nobody else handles it: back to the default action, which the faulting instruction meets
  // again when this handler returns (the process dies of the signal, as without us).
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(sig, &fallback, nullptr);
}

void on_fault(int sig, siginfo_t* info, void* context) {
  if (is_watchdog_kick(sig, info)) {
    // Leave the call only if it is still the stuck one; a kick that arrives after that call
    // returned is dropped.
    Slot* slot = slot_of_this_thread();
    Trap* trap = slot ? slot->trap.load(std::memory_order_relaxed) : nullptr;
    if (trap && slot->kicked.load(std::memory_order_relaxed) == slot->calls.load(std::memory_order_relaxed)) {
      siglongjmp(trap->jump, sig);
    }
    return;
  }
  if (Trap* trap = trap_of_this_thread()) siglongjmp(trap->jump, sig);
  pass_on(sig, info, context);
}

}  // namespace

Slot* slot_table(std::size_t* count) {
  *count = kSlots;
  return slots;
}

const void* watchdog_kick_marker() {
  static const char marker = 0;
  return &marker;
}

std::mutex& slot_mutex() {
  static std::mutex* mutex = new std::mutex;  // never destroyed: threads may end during exit
  return *mutex;
}

Slot* this_thread_slot() {
  thread_local SlotOwner owner;
  return owner.slot;
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    sigemptyset(&action.sa_mask);
    // SA_NODEFER: the handler leaves by siglongjmp without restoring a signal mask, so the
    // signal must not be blocked while it runs (or the next fault would kill the process).
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &action, &previous_segv);
    sigaction(SIGBUS, &action, &previous_bus);
  });
}

void note_fault(MDB_env* env) {
  if (env == nullptr) return;
  if (auto* graph = static_cast<GraphEnv*>(mdb_env_get_userctx(env))) graph->mark_damaged();
}

bool within_file(MDB_env* env, const MDB_val* key, const MDB_val* data) {
  auto* graph = static_cast<GraphEnv*>(mdb_env_get_userctx(env));
  if (graph == nullptr) return true;
  const bool inside = (key == nullptr || graph->within_file(key->mv_data, key->mv_size)) &&
                      (data == nullptr || graph->within_file(data->mv_data, data->mv_size));
  if (!inside) graph->mark_damaged();
  return inside;
}

}  // namespace fault_detail

Status index_damage(MDB_txn* txn, std::string_view what) {
  if (txn != nullptr) fault_detail::note_fault(mdb_txn_env(txn));
  return Status(StatusCode::Corrupt,
                fmt::format("the index is damaged ({}); it is rebuilt from the log by the next "
                            "statement",
                            what));
}

void on_lmdb_assert(MDB_env* /*env*/, const char* /*message*/) {
  fault_detail::Slot* slot = fault_detail::this_thread_slot();
  if (slot == nullptr) return;
  if (fault_detail::Trap* trap = slot->trap.load(std::memory_order_relaxed)) siglongjmp(trap->jump, SIGABRT);
}

namespace mdb {

int txn_commit(MDB_txn* txn) {
  MDB_env* env = env_of(txn);
  const int rc = guarded(env, [&] { return mdb_txn_commit(txn); }, Watch::No);
  if (rc == kPageFault) guarded(env, [&] { mdb_txn_abort(txn); return 0; }, Watch::No);
  return rc;
}

}  // namespace mdb
}  // namespace datalog::store
