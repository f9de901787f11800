/* The bundled example: a small pipeline of worker threads that checksum blocks of data.
 * Each finished block is a progress point. Most time goes to the checksum loop, some to
 * building the block, and a shared counter is updated under a mutex. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "coz.h"

enum { kThreads = 2, kBlocksPerThread = 8000, kBlockWords = 16384 };

static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total;

static void fill_block(uint64_t* block, uint64_t seed) {
  for (int i = 0; i < kBlockWords; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    block[i] = seed;
  }
}

static uint64_t checksum_block(const uint64_t* block) {
  uint64_t h = 1469598103934665603ull;
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < kBlockWords; i++) {
      h = (h ^ block[i]) * 1099511628211ull;
    }
  }
  return h;
}

static void* worker(void* arg) {
  uint64_t* block = malloc(sizeof(uint64_t) * kBlockWords);
  uint64_t seed = (uint64_t)(uintptr_t)arg;
  for (int b = 0; b < kBlocksPerThread; b++) {
    fill_block(block, seed + (uint64_t)b);
    uint64_t sum = checksum_block(block);
    pthread_mutex_lock(&total_lock);
    total += sum;
    pthread_mutex_unlock(&total_lock);
    COZ_PROGRESS_NAMED("block done");
  }
  free(block);
  return NULL;
}

int main(void) {
  pthread_t threads[kThreads];
  for (uintptr_t i = 0; i < kThreads; i++) {
    pthread_create(&threads[i], NULL, worker, (void*)(i + 1));
  }
  for (int i = 0; i < kThreads; i++) {
    pthread_join(threads[i], NULL);
  }
  printf("checksum of %d blocks: %016llx\n", kThreads * kBlocksPerThread, (unsigned long long)total);
  return 0;
}
