/* The load for epoll_server.c, never profiled: CLIENT_CONNECTIONS (default 4) threads, each with
 * one keep-alive TCP connection to 127.0.0.1:SERVER_PORT, sending a 64-byte request and reading
 * the 64-byte answer, one after another, until the server closes the connection. Connects are
 * retried for up to 10 s (the server may still be starting). Exits 0 once every connection has
 * had at least one answer and then been closed by the server. */
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

static unsigned short port;

static void* connection(void* arg) {
  (void)arg;
  int fd = -1;
  for (int tries = 0; tries < 10000; tries++) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr*)&addr, sizeof addr) == 0) break;
    close(fd);
    fd = -1;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  if (fd < 0) {
    fprintf(stderr, "client: cannot connect to port %u\n", port);
    exit(1);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char buf[64];
  memset(buf, 'q', sizeof buf);
  long answers = 0;
  for (;;) {
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) break;
    size_t got = 0;
    while (got < sizeof buf) {
      ssize_t n = read(fd, buf + got, sizeof buf - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) goto closed;
      got += (size_t)n;
    }
    answers++;
  }
closed:
  close(fd);
  return (void*)answers;
}

int main(void) {
  const char* p = getenv("SERVER_PORT");
  const char* c = getenv("CLIENT_CONNECTIONS");
  port = (unsigned short)(p ? atoi(p) : 18080);
  int n = c && atoi(c) > 0 && atoi(c) <= 256 ? atoi(c) : 4;
  pthread_t threads[256];
  for (int i = 0; i < n; i++) pthread_create(&threads[i], NULL, connection, NULL);
  long total = 0;
  for (int i = 0; i < n; i++) {
    void* answers;
    pthread_join(threads[i], &answers);
    total += (long)answers;
  }
  printf("answers %ld\n", total);
  return total > 0 ? 0 : 1;
}
