// Shared shapes of the blocking and waking hooks (section 5.2.5.4): a thread pays every delay it
// owes before it may block or wake another, and a thread that another thread released is
// credited with the delays inserted while it waited. Each hook is a short forwarder built from
// these; with no active runtime they call the real function and nothing else.
#pragma once

#include <errno.h>

#include "interpose/real_functions.h"
#include "runtime/runtime.h"

#define COZ_EXPORT extern "C" __attribute__((visibility("default")))

namespace coz::hooks {

// A call that may wake another thread.
template <typename Call>
inline auto waking(Call&& call) {
  if (Runtime* rt = Runtime::active()) {
    rt->catch_up();
  }
  return call();
}

// A call that may block until another thread acts; `released(result)` says whether another
// thread let it go (a timeout or an error earns no credit).
template <typename Call, typename Released>
inline auto blocking(Call&& call, Released&& released) {
  Runtime* rt = Runtime::active();
  if (!rt) {
    return call();
  }
  rt->catch_up();
  auto result = call();
  rt->post_block(released(result));
  return result;
}

// A lock: try without blocking first, so an uncontended acquisition costs no delay
// bookkeeping; otherwise block as above. `busy` is the try call's "would block" result.
template <typename Try, typename Block, typename Released>
inline auto locking(Try&& attempt, int busy, Block&& block, Released&& released) {
  Runtime* rt = Runtime::active();
  if (!rt) {
    return block();
  }
  auto result = attempt();
  if (result != busy) {
    return result;  // acquired (or failed) without waiting
  }
  rt->catch_up();
  result = block();
  rt->post_block(released(result));
  return result;
}

inline bool returned_zero(int rc) { return rc == 0; }
inline bool returned_positive(int rc) { return rc > 0; }
inline bool always(int) { return true; }

// -1/errno functions (sem_*): "would block" from the try call.
inline int sem_busy() { return -1; }

}  // namespace coz::hooks
