/* Load generator for benchmarks/real/uwsgi_prefork.py: a separate process, never profiled.
 *
 *   http_load PORT PATH REQUESTS CONCURRENCY
 *
 * CONCURRENCY threads share REQUESTS HTTP/1.0 GETs of PATH on 127.0.0.1:PORT, one connection per
 * request (the server closes it after the response), each thread waiting for its answer before
 * sending the next. Until the server listens (it may be starting under a profiler) a refused
 * connection is retried every millisecond, for up to 60 s. A request fails when its response does
 * not start with "HTTP/1.x 200" or is cut short. Prints
 *   requests N failed F elapsed_ns T
 * (T from the first request's connection to the last response) and exits 1 when F > 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port;
static const char* path;
static long total;
static long next_request;  /* shared by the threads, taken with an atomic add */
static long failed;
static long long first_ns = -1;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int connect_server(void) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  long long give_up = now_ns() + 60000000000LL;
  for (;;) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr*)&a, sizeof a) == 0) return fd;
    int e = errno;
    close(fd);
    if (e != ECONNREFUSED || now_ns() > give_up) return -1;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, 0);
  }
}

/* One request: 0 when the answer is a complete 200 response. */
static int one_request(char* buf, size_t size) {
  int fd = connect_server();
  if (fd < 0) return -1;
  __sync_bool_compare_and_swap(&first_ns, -1LL, now_ns());
  char req[512];
  int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nUser-Agent: http_load\r\n\r\n", path);
  if (write(fd, req, n) != n) {
    close(fd);
    return -1;
  }
  char head[257];  /* the response's first 256 bytes: status line and headers */
  size_t kept = 0;
  long long got = 0;
  for (;;) {
    ssize_t r = read(fd, buf, size);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (kept < 256) {
      size_t k = (size_t)r < 256 - kept ? (size_t)r : 256 - kept;
      memcpy(head + kept, buf, k);
      kept += k;
    }
    got += r;
  }
  close(fd);
  head[kept] = 0;
  if (strncmp(head, "HTTP/1.", 7) != 0 || strncmp(head + 8, " 200", 4) != 0) return -1;
  /* the response must be complete: Content-Length bytes after the headers */
  const char* cl = strstr(head, "Content-Length: ");
  const char* end = strstr(head, "\r\n\r\n");
  if (!cl || !end) return 0;  /* headers longer than 256 bytes: the status only */
  return got == atoll(cl + 16) + (end + 4 - head) ? 0 : -1;
}

static void* client(void* arg) {
  (void)arg;
  size_t size = 1 << 16;
  char* buf = malloc(size);
  while (__sync_fetch_and_add(&next_request, 1) < total) {
    if (one_request(buf, size) != 0) __sync_fetch_and_add(&failed, 1);
  }
  free(buf);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s PORT PATH REQUESTS CONCURRENCY\n", argv[0]);
    return 2;
  }
  port = atoi(argv[1]);
  path = argv[2];
  total = atol(argv[3]);
  int threads = atoi(argv[4]);
  pthread_t* t = calloc(threads, sizeof *t);
  for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, client, 0);
  for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
  long long elapsed = now_ns() - first_ns;
  printf("requests %ld failed %ld elapsed_ns %lld\n", total, failed, elapsed);
  return failed ? 1 : 0;
}
