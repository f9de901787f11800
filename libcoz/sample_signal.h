// The sampling signal, shared with the program. At start-up the profiler takes a real-time
// signal nobody handles or blocks yet (SIGRTMAX-2 when free), installs its handler there and
// keeps the signal unblocked in every thread. For the program the signal stays its own:
// - its sigaction()/signal() for it are recorded, not installed, and read back as it set them;
//   the profiler's handler passes every signal that is not a sample (told apart by si_code and
//   si_fd: samples come from a perf_event descriptor as POLL_IN/POLL_HUP, or from the timer
//   sampler as SI_TIMER with a tagged value) to that disposition,
//   with the program's sa_mask and flags;
// - its masks are applied without the signal, but each thread's mask reads back with the signal
//   blocked if the program blocked it.
// - a signal the program sends while the receiving thread "blocks" it is held here, as the
//   kernel would hold it pending, until the program waits for it (sigwait family) or unblocks it
//   (it is then sent again, to the same thread, as with sigqueue).
// It sits below both its users, like own_fds.h: the runtime installs the handler and takes the
// samples; the signal hooks (interpose/) keep the program's view.
//
// Threading: install() runs once at start-up. program_action() and forward() are
// async-signal-safe; set_program_action() must not be called from a signal handler that
// interrupted another set_program_action().
#pragma once

#include <signal.h>

namespace coz::sample_signal {

// Picks the signal and installs `handler` on it (SA_SIGINFO). The previous disposition becomes
// the program's. Returns the signal.
int install(void (*handler)(int, siginfo_t*, void*));
// Whether install() has run: from then on the hooks keep the signal the profiler's.
bool installed();
// If something replaced `handler` behind the hooks' back (sigset(), a raw rt_sigaction), takes
// that disposition as the program's and installs `handler` again. Called by the profiler thread.
void reclaim(void (*handler)(int, siginfo_t*, void*));

// The program's disposition of the signal (SIG_DFL until it sets one).
void program_action(struct sigaction* out);
// The program's sigaction(): records `act` (if not null) and returns the previous one in `old`.
void set_program_action(const struct sigaction* act, struct sigaction* old);

// The sampler token a signal carries (ThreadSampler::signal_token): perf's descriptor (si_fd of a
// POLL_* signal) or the timer sampler's number (an SI_TIMER value with the tag in platform.h);
// -1 for any other signal.
int token(const siginfo_t* info);
// Whether a signal with this siginfo is a sample (and not the program's own).
bool is_sample(const siginfo_t* info, bool token_is_a_sampler);
// Runs the program's disposition for a signal it sent. Returns false when that disposition is
// the default (terminate): the caller then ends the process as the signal would have.
bool forward(int sig, siginfo_t* info, void* context);

// Holds a signal the program sent while the receiving thread blocks it. Async-signal-safe; false
// when too many are held (as the kernel's queue of real-time signals can be full).
bool hold(const siginfo_t* info);
// Takes one held signal (oldest first is not guaranteed). Async-signal-safe.
bool take_held(siginfo_t* out);
// The program unblocked the signal: sends each held one again to the calling thread.
void resend_held();
bool any_held();

// How often the profiler's handler took the signal in this thread without running any of the
// program's code (a sample, or a signal held): a wait it interrupted with EINTR goes on.
unsigned own_interruptions();
void note_own_interruption();
// How often the program's handler for the signal ran in this thread.
unsigned program_deliveries();

// The calling thread's mask as the program sees it: does it block the signal?
bool program_blocks();
void set_program_blocks(bool blocked);

// Blocks the signal in the calling thread for the guard's lifetime (its samples wait), for the
// runtime's own work on the thread's sampler: its exit, shut-down.
class Block {
 public:
  Block();
  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

 private:
  sigset_t saved_;
};

}  // namespace coz::sample_signal
