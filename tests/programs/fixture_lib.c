/* A shared library the line-map test opens with dlopen, so its load address is chosen at run time. */
int fixture_lib_gamma(int x) { /* LINE:gamma */
  return x * 5 - 2;
}
