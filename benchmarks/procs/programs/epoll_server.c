/* A pre-fork event-loop server of nginx's shape: the master binds 127.0.0.1:SERVER_PORT, forks
 * SERVER_WORKERS (default 2) workers that share the listening socket, and waits. Each worker runs
 * one epoll loop over the listening socket (EPOLLEXCLUSIVE) and its keep-alive connections: it
 * reads a 64-byte request, handles it (SERVER_WORK iterations of known work, default 12000, about
 * 15 us: the handler line) and writes a 64-byte answer. A worker stops accepting after
 * SERVER_SHARE connections (default: no limit), so that the load is spread evenly, as nginx's
 * accept mutex spreads it. The load comes from a separate process
 * (keepalive_client.c), never profiled. The run ends after SERVER_REQUESTS (default 40000)
 * answers: the worker that sends the last tells the master on a pipe, the master closes the stop
 * pipe every worker watches, and the workers exit (closing the connections: the client stops).
 * The master prints the time from the first answer to the last and the count. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "procs.h"

enum { kMessage = 64, kMaxFds = 4096 };

struct shared {
  atomic_long served;
  atomic_ullong first_ns, last_ns;
};

static struct shared* sh;
static long total;

static void die(const char* what) {
  perror(what);
  exit(1);
}

/* Handles one whole request on `fd`; false if the connection should close. */
static int answer(int fd, long work) {
  unsigned char buf[kMessage];
  unsigned long v = 1;
  BENCH_SPIN(v, work); /* MARKED:handler */
  COZ_PROGRESS_NAMED("request");
  memset(buf, (int)(v & 0xff), sizeof buf);
  size_t sent = 0;
  while (sent < sizeof buf) { /* a 64-byte write to a loopback socket is whole unless it fails */
    ssize_t n = write(fd, buf + sent, sizeof buf - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    sent += (size_t)n;
  }
  unsigned long long now = bench_now_ns(), unset = 0;
  atomic_compare_exchange_strong(&sh->first_ns, &unset, now);
  if (atomic_fetch_add(&sh->served, 1) + 1 == total) {
    atomic_store(&sh->last_ns, now);
    return -1;
  }
  return 1;
}

static void worker(int listener, int stop, int done) {
  long work = procs_marked("handler", (long)bench_env("SERVER_WORK", 12000));
  long share = (long)bench_env("SERVER_SHARE", 1000000), accepted = 0;
  static unsigned char got[kMaxFds]; /* bytes of the request read so far, per connection */
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.fd = listener};
  if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev) < 0) die("worker: epoll");
  ev = (struct epoll_event){.events = EPOLLIN, .data.fd = stop};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, stop, &ev) < 0) die("worker: epoll stop");
  for (;;) {
    struct epoll_event events[64];
    int n = epoll_wait(ep, events, 64, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("worker: epoll_wait");
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd == stop) exit(0);
      if (fd == listener) {
        int c;
        while (accepted < share && (c = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
          if (++accepted == share && epoll_ctl(ep, EPOLL_CTL_DEL, listener, NULL) < 0) die("worker: share");
          int one = 1;
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          struct epoll_event cev = {.events = EPOLLIN, .data.fd = c};
          if (c >= kMaxFds || epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev) < 0) die("worker: connection");
          got[c] = 0;
        }
        continue;
      }
      unsigned char buf[kMessage];
      ssize_t r = read(fd, buf, kMessage - got[fd]);
      if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      int keep = r > 0;
      if (keep && (got[fd] += (unsigned char)r) == kMessage) {
        got[fd] = 0;
        keep = answer(fd, work);
        if (keep < 0) {
          if (write(done, "d", 1) != 1) die("worker: done");
          keep = 1;
        }
      }
      if (!keep) close(fd); /* closing removes it from the epoll set */
    }
  }
}

int main(void) {
  total = (long)bench_env("SERVER_REQUESTS", 40000);
  int workers = (int)bench_env("SERVER_WORKERS", 2);
  sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) die("mmap");
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short)bench_env("SERVER_PORT", 18080)),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (listener < 0 || bind(listener, (struct sockaddr*)&addr, sizeof addr) < 0 || listen(listener, 128) < 0)
    die("listen");
  int stop[2], done[2];
  if (pipe2(stop, O_CLOEXEC) < 0 || pipe2(done, O_CLOEXEC) < 0) die("pipe");
  pid_t pids[64];
  for (int w = 0; w < workers && w < 64; w++) {
    pids[w] = procs_fork();
    if (pids[w] == 0) {
      close(stop[1]);
      close(done[0]);
      worker(listener, stop[0], done[1]);
    }
  }
  close(stop[0]);
  close(done[1]);
  char c;
  ssize_t r;
  while ((r = read(done[0], &c, 1)) < 0 && errno == EINTR) {
  }
  if (r != 1) {
    fprintf(stderr, "master: the workers went away before %ld answers\n", total);
    return 1;
  }
  close(stop[1]); /* every worker sees the end of the stop pipe and exits */
  for (int w = 0; w < workers && w < 64; w++) procs_reap(pids[w], "master");
  printf("elapsed_ns %llu visits %ld sink 0\n",
         (unsigned long long)(atomic_load(&sh->last_ns) - atomic_load(&sh->first_ns)), total);
  return 0;
}
