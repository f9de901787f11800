/* Driver for sqlite_phases.py, after Coz's own SQLite benchmark (benchmarks/sqlite/main.c in
 * plasma-umass/coz) with two threads: each opens its own in-memory database and inserts ROWS rows
 * into its own table, one transaction per row, with a progress point after each insert. SQLite is
 * the unpatched amalgamation. Rows go in by increasing key, so the table grows at its end and
 * inserts barely slow down through a run (measured: flat within the noise, tenth by tenth).
 * INDEX=1 adds an index on a column of scattered values: each insert then lands at a random place
 * in a growing index, and inserts slow down by half or more from the first tenth of the run to
 * the last. ROWS comes from the first argument or the environment (default 350000, 200000 with
 * INDEX=1: about 1 s a run on the two-core VM). Prints "visits M". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "coz.h"
#include "sqlite3.h"

#define THREADS 2
static long rows = 350000;
static int indexed = 0;

static void check(int rc, sqlite3 *db, const char *what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE) {
    fprintf(stderr, "%s: %s\n", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    exit(1);
  }
}

static void *worker(void *arg) {
  long id = (long)arg;
  char sql[128];
  sqlite3 *db;
  check(sqlite3_open(":memory:", &db), 0, "open");
  check(sqlite3_exec(db, "PRAGMA synchronous=OFF; PRAGMA journal_mode=MEMORY;", 0, 0, 0), db, "pragma");
  snprintf(sql, sizeof sql, "CREATE TABLE tab%ld(id INTEGER PRIMARY KEY, x INTEGER, y INTEGER, z TEXT)", id);
  check(sqlite3_exec(db, sql, 0, 0, 0), db, "create");
  if (indexed) {
    snprintf(sql, sizeof sql, "CREATE INDEX ix%ld ON tab%ld(x)", id, id);
    check(sqlite3_exec(db, sql, 0, 0, 0), db, "index");
  }
  snprintf(sql, sizeof sql, "INSERT INTO tab%ld VALUES(?1, ?2, ?3, ?4)", id);
  sqlite3_stmt *ins;
  check(sqlite3_prepare_v2(db, sql, -1, &ins, 0), db, "prepare");
  for (long i = 0; i < rows; i++) {
    check(sqlite3_exec(db, "BEGIN TRANSACTION", 0, 0, 0), db, "begin");
    sqlite3_bind_int64(ins, 1, i + id * rows);
    /* with the index: scattered values (Fibonacci hashing of the row number) */
    sqlite3_bind_int64(ins, 2, indexed ? (long)((unsigned long)(i + 1) * 0x9E3779B97F4A7C15UL >> 20) : 2 * i);
    sqlite3_bind_int64(ins, 3, 3 * i);
    sqlite3_bind_text(ins, 4, "asdf", 4, SQLITE_STATIC);
    check(sqlite3_step(ins), db, "step");
    check(sqlite3_exec(db, "COMMIT TRANSACTION", 0, 0, 0), db, "commit");
    COZ_PROGRESS;
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  sqlite3_close(db);
  return 0;
}

int main(int argc, char **argv) {
  indexed = getenv("INDEX") && atoi(getenv("INDEX"));
  if (indexed) rows = 200000;
  if (getenv("ROWS")) rows = atol(getenv("ROWS"));
  if (argc > 1) rows = atol(argv[1]);
  if (sqlite3_threadsafe() == 0) {
    fprintf(stderr, "SQLite was built without thread safety\n");
    return 1;
  }
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], 0, worker, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], 0);
  printf("visits %ld\n", rows * THREADS);
  return 0;
}
