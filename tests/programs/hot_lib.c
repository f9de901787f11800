/* A library loaded with dlopen after start-up; its hot line must be profiled when in scope. */
unsigned long hot_lib_spin(unsigned long n, unsigned long v) {
  for (unsigned long i = 0; i < n; i++) v = v * 2654435761ul + i; /* LINE:hot_lib */
  return v;
}
