/* Line-map fixture: built by the test suite with many DWARF flavours. Markers name the lines whose
 * addresses the tests look up; keep each function's opening on its marker line. Built with -O0. */
#include <stdio.h>

int fixture_alpha(int x) { /* LINE:alpha */
  return x * 3 + 1;
}

int fixture_beta(int x) { /* LINE:beta */
  int y = x;
  for (int i = 0; i < 3; i++) {
    y = y * 7 + i; /* LINE:beta_loop */
  }
  return y;
}

int main(int argc, char** argv) {
  (void)argv;
  printf("%d\n", fixture_alpha(argc) + fixture_beta(argc));
  return 0;
}
