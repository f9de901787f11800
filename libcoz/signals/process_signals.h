// The profiler's process-wide signal handlers: the sampling signal's, and SIGINT's and SIGTERM's
// where the program left them at their default. They reach the runtime only through the Sink it
// connects at start-up; installed by the runtime (Runtime::start) and taken back by its profiler
// thread if the program replaced them (sample_signal::reclaim).
#pragma once

#include <signal.h>

namespace coz::process_signals {

// What the handlers ask of the runtime. Each call finds the active runtime itself and does
// nothing without one. Async-signal-safe.
struct Sink {
  bool (*is_sampler)(int token);  // a token (platform::sample_token) of a thread's sampler
  void (*take_sample)(const siginfo_t& info, const void* context);
  void (*shut_down)();  // writes the final records (a bounded wait in the handler)
};
// Connects the runtime's side, once (a static object: it is read in handlers for good).
void connect(const Sink* sink);

// The sampling signal: samples go to the runtime; anything else on the signal is the program's
// own (it sent it), forwarded to the program's disposition. Async-signal-safe.
void on_sample_signal(int sig, siginfo_t* info, void* context);
// SIGINT and SIGTERM that would kill the program outright: have the final records written, then
// die of the signal as the program would have. The writing happens in the profiler thread (the
// interrupted thread may hold malloc's lock); the handler only waits, a bounded time.
void on_exit_signal(int sig);
// Installs on_exit_signal where the program left SIGINT's or SIGTERM's default.
void install_exit_handlers();

}  // namespace coz::process_signals
