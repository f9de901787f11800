// A TCP proxy for one connection that holds every chunk DELAY_US microseconds in each direction,
// in order: the latency between two tiers of benchmarks/tiers/run.py, where no netem is at hand.
//
// Usage: delay_proxy PORTFILE TARGET_PORTFILE DELAY_US
//   Listens on an ephemeral port of 127.0.0.1 and writes it to PORTFILE (renamed into place), takes
//   one connection, then connects to the port in TARGET_PORTFILE (waiting up to 60 s for it to
//   appear). Each direction has a reader, which stamps a chunk with the time it arrived, and a
//   writer, which sleeps until that time plus the delay (an absolute clock_nanosleep with 1 ns of
//   timer slack) and sends it: a chunk is held for the delay from its arrival, whatever came before
//   it. On the end of the connection it prints how late its writers were past their due times
//   (median and 90th percentile, microseconds) to stderr: what the delay really was, beyond
//   DELAY_US.
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kSlots = 64, kChunk = 16384, kLateKept = 1 << 16 };

struct chunk {
  uint64_t due_ns;
  ssize_t length;  // 0: the source ended; -1: it failed
  char data[kChunk];
};

struct direction {
  int from, to;
  uint64_t delay_ns;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  struct chunk slots[kSlots];
  unsigned head, tail;  // written by the reader, read by the writer
  uint32_t late_us[kLateKept];
  unsigned lates;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void* reader(void* arg) {
  struct direction* d = arg;
  for (;;) {
    pthread_mutex_lock(&d->lock);
    while (d->tail - d->head == kSlots) {
      pthread_cond_wait(&d->changed, &d->lock);
    }
    struct chunk* c = &d->slots[d->tail % kSlots];
    pthread_mutex_unlock(&d->lock);
    ssize_t n;
    do {
      n = recv(d->from, c->data, kChunk, 0);
    } while (n < 0 && errno == EINTR);
    c->due_ns = now_ns() + d->delay_ns;
    c->length = n;
    pthread_mutex_lock(&d->lock);
    d->tail++;
    pthread_cond_signal(&d->changed);
    pthread_mutex_unlock(&d->lock);
    if (n <= 0) {
      return NULL;
    }
  }
}

static int send_all(int fd, const char* data, ssize_t length) {
  while (length > 0) {
    ssize_t n = send(fd, data, (size_t)length, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return -1;
    }
    data += n;
    length -= n;
  }
  return 0;
}

static void* writer(void* arg) {
  struct direction* d = arg;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  for (;;) {
    pthread_mutex_lock(&d->lock);
    while (d->tail == d->head) {
      pthread_cond_wait(&d->changed, &d->lock);
    }
    struct chunk* c = &d->slots[d->head % kSlots];
    pthread_mutex_unlock(&d->lock);
    struct timespec due = {(time_t)(c->due_ns / 1000000000u), (long)(c->due_ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR) {
    }
    uint64_t late = now_ns() - c->due_ns;
    if (d->lates < kLateKept) {
      d->late_us[d->lates++] = (uint32_t)(late / 1000u);
    }
    int ended = c->length <= 0 || send_all(d->to, c->data, c->length) != 0;
    pthread_mutex_lock(&d->lock);
    d->head++;
    pthread_cond_signal(&d->changed);
    pthread_mutex_unlock(&d->lock);
    if (ended) {
      shutdown(d->to, SHUT_WR);
      return NULL;
    }
  }
}

static int read_port(const char* path) {
  FILE* f = fopen(path, "r");
  int port = 0;
  if (f) {
    if (fscanf(f, "%d", &port) != 1) {
      port = 0;
    }
    fclose(f);
  }
  return port;
}

static int connect_target(const char* portfile) {
  for (int tries = 0; tries < 6000; tries++) {  // 60 s at 10 ms
    int port = read_port(portfile);
    if (port > 0) {
      int s = socket(AF_INET, SOCK_STREAM, 0);
      struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (connect(s, (struct sockaddr*)&a, sizeof a) == 0) {
        return s;
      }
      close(s);
    }
    usleep(10000);
  }
  return -1;
}

static int by_value(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc != 4 || atof(argv[3]) < 0) {
    fprintf(stderr, "usage: delay_proxy PORTFILE TARGET_PORTFILE DELAY_US\n");
    return 2;
  }
  uint64_t delay_ns = (uint64_t)(atof(argv[3]) * 1000.0);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(listener, (struct sockaddr*)&a, sizeof a) != 0 || listen(listener, 4) != 0 ||
      getsockname(listener, (struct sockaddr*)&a, &len) != 0) {
    perror("delay_proxy: listen");
    return 1;
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
  FILE* f = fopen(tmp, "w");
  if (!f || fprintf(f, "%d\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0 || rename(tmp, argv[1])) {
    perror("delay_proxy: port file");
    return 1;
  }
  int up = accept(listener, NULL, NULL);
  close(listener);
  int down = up >= 0 ? connect_target(argv[2]) : -1;
  if (up < 0 || down < 0) {
    fprintf(stderr, "delay_proxy: no connection (%s)\n", up < 0 ? "accept" : argv[2]);
    return 1;
  }
  int one = 1;
  setsockopt(up, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(down, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  static struct direction ways[2];
  pthread_t threads[4];
  for (int i = 0; i < 2; i++) {
    ways[i].from = i == 0 ? up : down;
    ways[i].to = i == 0 ? down : up;
    ways[i].delay_ns = delay_ns;
    pthread_mutex_init(&ways[i].lock, NULL);
    pthread_cond_init(&ways[i].changed, NULL);
    pthread_create(&threads[2 * i], NULL, reader, &ways[i]);
    pthread_create(&threads[2 * i + 1], NULL, writer, &ways[i]);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
  }
  static uint32_t late[2 * kLateKept];
  unsigned n = 0;
  for (int i = 0; i < 2; i++) {
    memcpy(late + n, ways[i].late_us, ways[i].lates * sizeof *late);
    n += ways[i].lates;
  }
  qsort(late, n, sizeof *late, by_value);
  if (n > 0) {
    fprintf(stderr, "delay_proxy: %u chunks, late past the delay: median %u us, 90th %u us\n", n,
            late[n / 2], late[n * 9 / 10]);
  }
  return 0;
}
