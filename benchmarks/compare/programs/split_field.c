/* A program whose speed depends on where its heap blocks lie, as packed records do: each step
 * reads two unaligned 8-byte fields of a record it allocated, at offsets 60 and 92. A field that
 * crosses a 64-byte cache line takes longer to load on x86-64 CPUs. malloc places blocks 16 bytes
 * apart, so the record starts at one of four offsets in its line: at two of them one field
 * crosses, at the other two neither does.
 *
 * RECORD_AT (0 or 16) is where the record lies in the block allocated for it (as a header before
 * it would put it), so the two builds put the record 16 bytes apart and do exactly the same work:
 * at any one layout of the heap exactly one of them loads a split field. Address-space randomisation
 * moves the heap by whole pages, which changes nothing here, so a before-and-after timing sees a
 * difference that is the layout's alone, however many times it runs; over layouts there is
 * none. ITEMS items (argv[1], default 400), a progress point each. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coz.h"

#ifndef RECORD_AT
#define RECORD_AT 0
#endif
#define STEPS 200000 /* dependent loads per item */

__attribute__((noinline)) static uint64_t item(const unsigned char* record, uint64_t v) {
  uint64_t a = 0, b = 0;
  for (long i = 0; i < STEPS; i++) {
    /* The record holds zeroes: each load's address is the one before's value, so the loads form
     * one chain, and a split one lengthens it. */
    memcpy(&a, record + 60 + b, 8);
    memcpy(&b, record + 92 + a, 8);
  }
  return v + a + b;
}

int main(int argc, char** argv) {
  long items = argc > 1 ? atol(argv[1]) : 400;
  unsigned char* block = calloc(1, 16 + 160);
  if (!block) {
    return 1;
  }
  const unsigned char* record = block + RECORD_AT;
  uint64_t v = 0;
  for (long i = 0; i < items; i++) {
    v = item(record, v);
    COZ_PROGRESS_NAMED("item");
  }
  printf("%lu\n", (unsigned long)v);
  free(block);
  return 0;
}
