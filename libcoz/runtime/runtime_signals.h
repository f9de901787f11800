// The runtime's process-wide handlers, which reach it through Runtime::active(): installed at
// start-up (Runtime::start) and taken back by the profiler thread if the program replaced them.
#pragma once

#include <signal.h>

namespace coz::runtime_signals {

// The sampling signal: samples go to the runtime; anything else on the signal is the program's
// own (it sent it), forwarded to the program's disposition. Async-signal-safe.
void on_sample_signal(int sig, siginfo_t* info, void* context);
// SIGINT and SIGTERM that would kill the program outright: have the final records written, then
// die of the signal as the program would have. The writing happens in the profiler thread (the
// interrupted thread may hold malloc's lock); the handler only waits, a bounded time.
void on_exit_signal(int sig);
// Installs on_exit_signal where the program left SIGINT's or SIGTERM's default.
void install_exit_handlers();
// A sampled thread's exit (its pthread key destructor).
void on_thread_exit(void* state);

}  // namespace coz::runtime_signals
