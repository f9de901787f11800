/* Tiers: one program in three roles that make a chain of services over TCP on 127.0.0.1, one
 * request at a time, for cross-program causal profiling (benchmarks/tiers/run.py).
 *
 *   tiers back PORTFILE WORK                 serve: per request, back_work(WORK), then reply
 *   tiers middle PORTFILE NEXT_PORTFILE WORK serve: per request, middle_work(WORK), forward it
 *                                            to the next tier, wait for its reply, reply
 *   tiers front NEXT_PORTFILE WORK MS        for MS ms of wall-clock time: front_work(WORK),
 *                                            send a request, read the reply, COZ_PROGRESS
 *
 * A server listens on an ephemeral port of 127.0.0.1, writes the port as text to PORTFILE (to
 * PORTFILE.tmp, then renamed, so a reader never sees part of it) and accepts one connection.
 * A client reads the port from NEXT_PORTFILE and connects, retrying every 10 ms for up to 10 s
 * (the file may not exist yet, or the port may refuse). Requests and replies are 8 bytes. A
 * server exits 0 when its peer closes (a middle closes its downstream connection first);
 * the back prints "back served N", the middle "middle served N", the front "front done N".
 * Errors print one line starting with "tiers: " to stderr and exit 2.
 *
 * WORK is a number of units (decimals allowed: 7.5); a unit is 1000 steps of a dependent
 * multiply chain, scaled by TEST_WORK_SCALE (fixture_work.h). Each role's chain is on a line of
 * its own, marked by a comment that scripts find by grepping. Every result feeds the bytes sent,
 * so no chain can be dropped. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coz.h"
#include "fixture_work.h"

#define UNIT_STEPS 1000.0 /* multiply-chain steps in a unit of work, before scaling */

__attribute__((noreturn, format(printf, 1, 2))) static void fail(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tiers: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

__attribute__((noinline)) static unsigned long front_work(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* the front's line */
  return v;
}

__attribute__((noinline)) static unsigned long middle_work(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* the middle's line */
  return v;
}

__attribute__((noinline)) static unsigned long back_work(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* the back's line */
  return v;
}

/* WORK units as chain steps, scaled by TEST_WORK_SCALE; at least one. */
static unsigned long parse_work(const char* text) {
  char* end;
  errno = 0;
  double units = strtod(text, &end);
  if (errno || end == text || *end || !(units >= 0) || units > 1e9) {
    fail("bad WORK '%s': want a number of units, 0 or more", text);
  }
  return work_scaled((unsigned long)(units * UNIT_STEPS + 0.5));
}

static long parse_ms(const char* text) {
  char* end;
  errno = 0;
  long ms = strtol(text, &end, 10);
  if (errno || end == text || *end || ms <= 0) fail("bad MS '%s': want milliseconds, 1 or more", text);
  return ms;
}

static void set_nodelay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
    fail("setsockopt TCP_NODELAY: %s", strerror(errno));
  }
}

/* Reads exactly 8 bytes: 1 when read, 0 on end of file before the first byte. */
static int read_message(int fd, unsigned char msg[8], const char* peer) {
  size_t got = 0;
  while (got < 8) {
    ssize_t n = read(fd, msg + got, 8 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read from %s: %s", peer, strerror(errno));
    if (n == 0) {
      if (got == 0) return 0;
      fail("%s closed the connection in the middle of a message", peer);
    }
    got += (size_t)n;
  }
  return 1;
}

static void write_message(int fd, const unsigned char msg[8], const char* peer) {
  size_t put = 0;
  while (put < 8) {
    ssize_t n = write(fd, msg + put, 8 - put);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write to %s: %s", peer, strerror(errno));
    put += (size_t)n;
  }
}

static unsigned long get_u64(const unsigned char msg[8]) {
  unsigned long v;
  memcpy(&v, msg, 8);
  return v;
}

static void put_u64(unsigned char msg[8], unsigned long v) { memcpy(msg, &v, 8); }

/* A TCP socket, and 127.0.0.1:`port` in `addr`. */
static int loopback_socket(struct sockaddr_in* addr, int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket: %s", strerror(errno));
  memset(addr, 0, sizeof *addr);
  addr->sin_family = AF_INET;
  addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr->sin_port = htons((unsigned short)port);
  return fd;
}

/* Listens on an ephemeral port of 127.0.0.1 and publishes it in `portfile`. */
static int listen_and_publish(const char* portfile) {
  struct sockaddr_in addr;
  int fd = loopback_socket(&addr, 0);
  if (bind(fd, (struct sockaddr*)&addr, sizeof addr) != 0) fail("bind: %s", strerror(errno));
  if (listen(fd, 4) != 0) fail("listen: %s", strerror(errno));
  socklen_t len = sizeof addr;
  if (getsockname(fd, (struct sockaddr*)&addr, &len) != 0) fail("getsockname: %s", strerror(errno));
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", portfile) >= (int)sizeof tmp) {
    fail("PORTFILE path too long: %s", portfile);
  }
  FILE* f = fopen(tmp, "w");
  if (!f) fail("cannot write %s: %s", tmp, strerror(errno));
  fprintf(f, "%d\n", ntohs(addr.sin_port));
  if (fclose(f) != 0) fail("cannot write %s: %s", tmp, strerror(errno));
  if (rename(tmp, portfile) != 0) fail("cannot rename %s to %s: %s", tmp, portfile, strerror(errno));
  return fd;
}

static int accept_one(int listener) {
  int fd;
  do {
    fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) fail("accept: %s", strerror(errno));
  close(listener);
  set_nodelay(fd);
  return fd;
}

/* The port in `portfile`, or 0 when it does not exist (yet) or holds no port. */
static int read_port(const char* portfile) {
  FILE* f = fopen(portfile, "r");
  if (!f) return 0;
  int port = 0;
  if (fscanf(f, "%d", &port) != 1 || port <= 0 || port > 65535) port = 0;
  fclose(f);
  return port;
}

/* Connects to the port that `portfile` names, retrying every 10 ms for up to 10 s. */
static int connect_next(const char* portfile) {
  long long deadline = work_clock_ns(CLOCK_MONOTONIC) + 10000000000ll;
  const char* why = "the file does not exist";
  for (;;) {
    int port = read_port(portfile);
    if (port) {
      struct sockaddr_in addr;
      int fd = loopback_socket(&addr, port);
      if (connect(fd, (struct sockaddr*)&addr, sizeof addr) == 0) {
        set_nodelay(fd);
        return fd;
      }
      why = strerror(errno);
      close(fd);
    } else if (access(portfile, F_OK) == 0) {
      why = "the file holds no port";
    }
    if (work_clock_ns(CLOCK_MONOTONIC) >= deadline) {
      fail("could not connect to the port in %s within 10 s: %s", portfile, why);
    }
    struct timespec pause = {0, 10000000};
    nanosleep(&pause, NULL);
  }
}

static int run_back(const char* portfile, unsigned long steps) {
  int up = accept_one(listen_and_publish(portfile));
  unsigned char msg[8];
  unsigned long served = 0, v = 1;
  while (read_message(up, msg, "upstream")) {
    v = back_work(steps, v ^ get_u64(msg));
    put_u64(msg, v);
    write_message(up, msg, "upstream");
    served++;
  }
  close(up);
  printf("back served %lu\n", served);
  return 0;
}

static int run_middle(const char* portfile, const char* next_portfile, unsigned long steps) {
  int listener = listen_and_publish(portfile);
  int down = connect_next(next_portfile);
  int up = accept_one(listener);
  unsigned char msg[8];
  unsigned long served = 0, v = 1;
  while (read_message(up, msg, "upstream")) {
    v = middle_work(steps, v ^ get_u64(msg));
    put_u64(msg, v);
    write_message(down, msg, "the next tier");
    if (!read_message(down, msg, "the next tier")) fail("the next tier closed the connection");
    v ^= get_u64(msg);
    put_u64(msg, v);
    write_message(up, msg, "upstream");
    served++;
  }
  close(down);
  close(up);
  printf("middle served %lu\n", served);
  return 0;
}

static int run_front(const char* next_portfile, unsigned long steps, long ms) {
  int down = connect_next(next_portfile);
  long long end = work_clock_ns(CLOCK_MONOTONIC) + (long long)ms * 1000000ll;
  unsigned char msg[8];
  unsigned long done = 0, v = 1;
  while (work_clock_ns(CLOCK_MONOTONIC) < end) {
    v = front_work(steps, v);
    put_u64(msg, v);
    write_message(down, msg, "the next tier");
    if (!read_message(down, msg, "the next tier")) fail("the next tier closed the connection");
    v ^= get_u64(msg);
    done++;
    COZ_PROGRESS;
  }
  close(down);
  printf("front done %lu\n", done);
  return 0;
}

static void usage(void) {
  fail(
      "usage: tiers back PORTFILE WORK | tiers middle PORTFILE NEXT_PORTFILE WORK | "
      "tiers front NEXT_PORTFILE WORK MS");
}

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2) usage();
  if (strcmp(argv[1], "back") == 0 && argc == 4) return run_back(argv[2], parse_work(argv[3]));
  if (strcmp(argv[1], "middle") == 0 && argc == 5) {
    return run_middle(argv[2], argv[3], parse_work(argv[4]));
  }
  if (strcmp(argv[1], "front") == 0 && argc == 5) {
    return run_front(argv[2], parse_work(argv[3]), parse_ms(argv[4]));
  }
  usage();
}
