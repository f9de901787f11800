/* Echoes stdin to stdout, writes a line to stderr, and exits with the status given as argv[1]
 * (or kills itself with the signal named by argv[2] == "signal"). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) {
    fwrite(buf, 1, n, stdout);
  }
  fputs("to stderr\n", stderr);
  fflush(NULL);
  int code = argc > 1 ? atoi(argv[1]) : 0;
  if (argc > 2 && strcmp(argv[2], "signal") == 0) {
    raise(code);
  }
  return code;
}
