// The few functions of libm the runtime needs (the blocked-time clock's random draws, rounding),
// written
// here so that libcoz.so does not load libm: 900 KiB of address space a C program that does not
// use it would lose under `ulimit -v`. Accurate to a few units in the last place of a double
// (tests/unit/plain_math_test.cpp checks them against libm), for finite arguments in the ranges
// noted; no errno, no special cases beyond those.
#pragma once

#include <cstdint>
#include <cstring>

namespace coz::plain_math {

// ln(x) for x > 0 (finite, normal). x = m * 2^e with m in [sqrt(1/2), sqrt(2)); ln(m) =
// 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172: the series in s^2 needs 11 terms.
inline double ln(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;  // m in [1, 2)
  double m;
  std::memcpy(&m, &bits, sizeof m);
  if (m > 1.4142135623730951) {
    m /= 2;
    exponent++;
  }
  double s = (m - 1) / (m + 1);
  double s2 = s * s;
  double sum = 0;
  for (int k = 23; k >= 1; k -= 2) {
    sum = sum * s2 + 1.0 / k;
  }
  return 2 * s * sum + exponent * 0.6931471805599453;
}

// e^x - 1, accurate near 0 as well: -1 below -40 (e^-40 is under a double's precision of 1), and
// infinity above 709.78 (past the largest double).
inline double exp_minus_one(double x) {
  if (x < -40) {
    return -1;
  }
  if (x > 709.78) {
    return __builtin_inf();
  }
  if (x > -0.5 && x < 0.5) {  // Taylor: the 20th term is under 1e-24 of the first
    double term = x, sum = x;
    for (int n = 2; n <= 20; n++) {
      term *= x / n;
      sum += term;
    }
    return sum;
  }
  // e^x = 2^k e^r, r = x - k ln 2 in [-ln 2 / 2, ln 2 / 2].
  double kf = x * 1.4426950408889634;
  int k = static_cast<int>(kf < 0 ? kf - 0.5 : kf + 0.5);
  double r = x - k * 0.6931471805599453;
  double term = 1, sum = 1;
  for (int n = 1; n <= 20; n++) {
    term *= r / n;
    sum += term;
  }
  uint64_t bits = static_cast<uint64_t>(k + 1023) << 52;  // 2^k, k within the normal range
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return sum * scale - 1;
}

// The square root of x >= 0: Newton's iteration from a guess halving the exponent.
inline double square_root(double x) {
  if (x <= 0) {
    return 0;
  }
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = (bits >> 1) + (uint64_t{1023} << 51);  // about sqrt(x), within a factor of 1.5
  double y;
  std::memcpy(&y, &bits, sizeof y);
  for (int i = 0; i < 6; i++) {
    y = 0.5 * (y + x / y);
  }
  return y;
}

// x >= 0 rounded to the nearest integer, halves up (std::llround for such x).
inline uint64_t round_to_u64(double x) {
  return x <= 0 ? 0 : static_cast<uint64_t>(x + 0.5);
}

}  // namespace coz::plain_math
