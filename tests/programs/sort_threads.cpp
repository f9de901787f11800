// Two threads whose time goes into std::sort, called from one line of this file (marked
// sort_call). Built -O2 -g: most of std::sort is inlined into sort_round, the rest is an
// out-of-line template instance whose lines are in the compiler's headers. Runs for the
// milliseconds given (default 2000) and prints "done".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "coz.h"

namespace {

unsigned next_random(unsigned* state) {
  unsigned x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

__attribute__((noinline)) unsigned sort_round(std::vector<unsigned>& v, unsigned* state) {
  for (unsigned& x : v) {
    x = next_random(state);
  }
  std::sort(v.begin(), v.end()); /* LINE:sort_call */
  return v[v.size() / 2];
}

void worker(unsigned seed, std::chrono::steady_clock::time_point end, unsigned* out) {
  std::vector<unsigned> v(1000);
  unsigned state = seed, sum = 0;
  while (std::chrono::steady_clock::now() < end) {
    sum += sort_round(v, &state);
    COZ_PROGRESS_NAMED("sorted");
  }
  *out = sum;
}

}  // namespace

int main(int argc, char** argv) {
  int ms = argc > 1 ? atoi(argv[1]) : 2000;
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  unsigned a = 0, b = 0;
  std::thread t1(worker, 2463534242u, end, &a);
  std::thread t2(worker, 88675123u, end, &b);
  t1.join();
  t2.join();
  printf("done %u\n", a ^ b);
  return 0;
}
