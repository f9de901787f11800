/* Driver for SQLite (the code profiled is SQLite's amalgamation): THREADS threads, each inserting
 * ROWS rows into its own table in its own database file, in transactions of 500 rows, through a
 * prepared statement. Prints "elapsed_ns N visits M" (visits = rows stepped).
 * SYNC_ROWS=N (the sqlite-sync workload): one thread instead, inserting N rows into a database file
 * in WAL mode with synchronous=FULL, each row its own transaction (autocommit): each sqlite3_step
 * commits, which syncs the WAL once (unixSync); a checkpoint every 1000 pages adds a few syncs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sqlite3.h"

#define THREADS 2
static long rows = 150000;
static int sync_mode = 0;
static const char *dir = ".";

static void check(int rc, sqlite3 *db, const char *what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "%s: %s\n", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    exit(1);
  }
}

static void remove_db(const char *path) {  /* and a WAL-mode database's -wal and -shm files */
  char other[4200];
  remove(path);
  if (!sync_mode) return;
  snprintf(other, sizeof other, "%s-wal", path); remove(other);
  snprintf(other, sizeof other, "%s-shm", path); remove(other);
}

static void *worker(void *arg) {
  long id = (long)arg;
  char path[4096];
  snprintf(path, sizeof path, "%s/bench_%ld.db", dir, id);
  remove_db(path);
  sqlite3 *db;
  check(sqlite3_open(path, &db), 0, "open");
  check(sqlite3_exec(db, sync_mode ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                                   : "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;", 0, 0, 0), db, "pragma");
  check(sqlite3_exec(db,
                         "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, tag INTEGER);"
                         "CREATE INDEX t_name ON t(name);", 0, 0, 0), db, "schema");
  sqlite3_stmt *ins;
  check(sqlite3_prepare_v2(db, "INSERT INTO t(name, score, tag) VALUES(?1, ?2, ?3)", -1, &ins, 0), db, "prepare");
  unsigned long x = 88172645463325252UL + (unsigned long)id;
  char name[64];
  for (long i = 0; i < rows; i++) {
    if (!sync_mode && i % 500 == 0) check(sqlite3_exec(db, "BEGIN", 0, 0, 0), db, "begin");
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    snprintf(name, sizeof name, "name-%016lx-%ld", x, i);
    sqlite3_bind_text(ins, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(ins, 2, (double)(x % 100000) / 7.0);
    sqlite3_bind_int64(ins, 3, (long long)(x % 1000));
    check(sqlite3_step(ins), db, "step");
    sqlite3_reset(ins);
    if (!sync_mode && (i % 500 == 499 || i == rows - 1)) check(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
  }
  sqlite3_finalize(ins);
  sqlite3_close(db);
  remove_db(path);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) dir = argv[1];
  if (getenv("ROWS")) rows = atol(getenv("ROWS"));
  if (getenv("SYNC_ROWS")) sync_mode = 1, rows = atol(getenv("SYNC_ROWS"));
  int threads = sync_mode ? 1 : THREADS;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  pthread_t t[THREADS];
  for (long i = 0; i < threads; i++) pthread_create(&t[i], 0, worker, (void *)i);
  for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
  clock_gettime(CLOCK_MONOTONIC, &b);
  long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
  printf("elapsed_ns %lld visits %ld\n", ns, rows * threads);
  return 0;
}
