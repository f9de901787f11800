/* The runtime under limits and image changes: argv[1] is "quick-exit" (at_quick_exit handler,
 * quick_exit(3)), "exec" (blocks every signal, a failing exec, then execs itself as "show"),
 * "spawn" (blocks every signal, posix_spawns itself as "show" without and with a mask), "show"
 * (prints its mask), "files" (opens up to 12 files), "highest-fd" (prints its highest open
 * descriptor, a sampled thread beside main), "vmsize" (prints the address space of its
 * accessible mappings in KiB) or "threads" (4 threads). Each spins first so experiments complete. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coz.h"
#include "fixture_work.h"

extern char** environ;
volatile unsigned long sink;

static unsigned long spin_chunk(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:spin */
  COZ_PROGRESS_NAMED("spin");
  return v;
}

static void spin(double ms) {
  sink = spin_for(spin_chunk, 0x100000, ms, 1);
}

static void show_mask(const char* what) {
  sigset_t now;
  char bits[_NSIG];
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  for (int s = 1; s < _NSIG; s++) bits[s - 1] = sigismember(&now, s) ? '1' : '0';
  bits[_NSIG - 1] = 0;
  printf("%s %s\n", what, bits);
  fflush(stdout);
}

static void spawn_show(const char* self, const posix_spawnattr_t* attr, const char* what) {
  char* argv[] = {(char*)self, "show", (char*)what, NULL};
  pid_t pid;
  int status = -1;
  if (posix_spawn(&pid, "/proc/self/exe", NULL, attr, argv, environ) == 0) waitpid(pid, &status, 0);
  printf("spawned %s: status %d\n", what, status);
}

static void on_quick_exit(void) {
  printf("at_quick_exit handler ran\n");
  fflush(stdout);
}

static void* worker(void* arg) {
  spin(100);
  return arg;
}

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "";
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  if (strcmp(how, "quick-exit") == 0) {
    at_quick_exit(on_quick_exit);
    spin(300);
    quick_exit(3);
  }
  if (strcmp(how, "exec") == 0) {
    sigprocmask(SIG_SETMASK, &all, NULL);
    spin(300);
    execl("/nonexistent/program", "program", (char*)NULL);
    show_mask("after a failed exec");
    spin(100);
    execl("/proc/self/exe", argv[0], "show", "after exec", (char*)NULL);
    return 1;
  }
  if (strcmp(how, "spawn") == 0) {
    sigprocmask(SIG_SETMASK, &all, NULL);
    spin(300);
    fflush(stdout);
    spawn_show(argv[0], NULL, "inherited");
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setsigmask(&attr, &none);
    spawn_show(argv[0], &attr, "empty");
    posix_spawnattr_destroy(&attr);
    return 0;
  }
  if (strcmp(how, "vmsize") == 0) {
    /* Mappings with some access, from /proc/self/maps: a reservation without any (the unused
     * part of a thread's malloc arena, which glibc reserves whole the first time a thread
     * allocates, at a moment that varies; guard pages) is left out. */
    FILE* f = fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long kib = 0;
    while (f && fgets(line, sizeof line, f)) {
      unsigned long lo, hi;
      char perms[5];
      if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && strcmp(perms, "---p") != 0) {
        kib += (hi - lo) / 1024;
      }
    }
    if (f) fclose(f);
    printf("vmsize %lu\n", kib);
    return 0;
  }
  if (strcmp(how, "show") == 0) {
    show_mask(argc > 2 ? argv[2] : "mask");
    return 0;
  }
  if (strcmp(how, "files") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    spin(300);
    pthread_join(t, NULL);
    int opened = 0;
    while (opened < 12 && open("/dev/null", O_RDONLY) >= 0) opened++;
    printf("opened %d of 12 files\n", opened);
    return 0;
  }
  if (strcmp(how, "highest-fd") == 0) { /* with a sampled thread beside main */
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    spin(300);
    int highest = -1;
    DIR* d = opendir("/proc/self/fd");
    for (struct dirent* e; d && (e = readdir(d));) {
      if (atoi(e->d_name) > highest) highest = atoi(e->d_name);
    }
    if (d) closedir(d);
    pthread_join(t, NULL);
    printf("highest descriptor %d\n", highest);
    return 0;
  }
  if (strcmp(how, "threads") == 0) {
    pthread_t ts[4];
    for (int i = 0; i < 4; i++) pthread_create(&ts[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++) pthread_join(ts[i], NULL);
    spin(300);
    printf("4 threads joined\n");
    return 0;
  }
  fprintf(stderr, "usage: runtime_limits quick-exit|exec|spawn|show|files|highest-fd|threads\n");
  return 2;
}
