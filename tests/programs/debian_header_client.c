/* Built against Debian's /usr/include/coz.h (Coz 0.2) when present: binary compatibility. */
#include <coz.h>
#include <stdio.h>

int main(void) {
  for (int i = 0; i < 21; i++) {
    COZ_PROGRESS_NAMED("debian progress");
  }
  puts("debian header client done");
  return 0;
}
