/* Driver for zstd (the code profiled is zstd's lib): compresses a generated 48 MiB buffer of
 * text-like data ROUNDS times with ZSTD_c_nbWorkers=2 (zstd's own multithreaded compression, its
 * worker pool and job queue), level 3. Prints "elapsed_ns N visits M" (visits = 128 KiB blocks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define ZSTD_STATIC_LINKING_ONLY
#include "zstd.h"

int main(void) {
  size_t size = 48u << 20;
  int rounds = getenv("ROUNDS") ? atoi(getenv("ROUNDS")) : 3;
  char *src = malloc(size);
  static const char *words[] = {"the", "profiler", "causal", "virtual", "speedup", "thread", "line",
                                "progress", "point", "sample", "delay", "experiment", "zstd", "block",
                                "window", "match", "literal", "sequence", "entropy", "huffman"};
  unsigned long x = 88172645463325252UL;
  for (size_t i = 0; i < size;) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    const char *w = words[x % 20];
    size_t n = strlen(w);
    for (size_t k = 0; k < n && i < size; k++) src[i++] = w[k];
    if (i < size) src[i++] = (x >> 20) % 11 == 0 ? '\n' : ' ';
    if (i < size && (x >> 32) % 7 == 0) src[i++] = '0' + (char)((x >> 40) % 10);
  }
  size_t cap = ZSTD_compressBound(size);
  char *dst = malloc(cap);
  ZSTD_CCtx *cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, 2))) {
    fprintf(stderr, "zstd built without multithreading\n");
    return 1;
  }
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  size_t out = 0;
  for (int r = 0; r < rounds; r++) {
    out = ZSTD_compress2(cctx, dst, cap, src, size);
    if (ZSTD_isError(out)) { fprintf(stderr, "%s\n", ZSTD_getErrorName(out)); return 1; }
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
  printf("elapsed_ns %lld visits %zu ratio %.3f\n", ns, (size_t)rounds * (size >> 17), (double)size / out);
  ZSTD_freeCCtx(cctx);
  return 0;
}
