// Small statistics for causal profiles: a seeded random source for the bootstrap, percentile
// intervals, least-squares slope, Coz's area-based impact and Benjamini-Hochberg control of the
// false discovery rate. Pure functions; nothing here reads a clock or global state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace coz::analysis {

// splitmix64: the same stream for a given seed on every platform (std:: distributions are
// implementation-defined), so reports are reproducible.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }  // n is small: bias < 2^-40
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Where the stream would be after n more draws (SplitMix64 is a counter: any draw of a stream
  // is reached at once, so work split across threads draws what one loop would have).
  void skip(uint64_t n) { state_ += n * kStep; }

 private:
  static constexpr uint64_t kStep = 0x9e3779b97f4a7c15ull;
  uint64_t state_;
};

// n mod d for one d, exactly, by two multiplications instead of a division (Lemire, Kaser and
// Kurz, "Faster remainder by direct computation", 2019): with c = ceil(2^128 / d), the low 128
// bits of c n are the fraction n / d - floor(n / d) in 128 bits, and that fraction times d, its
// integer part, is the remainder. Exact for every 64-bit n and d > 0 (128 >= 64 + log2 d).
class FixedModulus {
 public:
  explicit FixedModulus(uint64_t d) : d_(d), c_(~static_cast<unsigned __int128>(0) / d + 1) {}
  uint64_t of(uint64_t n) const {
    unsigned __int128 fraction = c_ * n;
    unsigned __int128 low = (fraction & ~uint64_t{0}) * d_ >> 64;
    return static_cast<uint64_t>((low + (fraction >> 64) * d_) >> 64);
  }

 private:
  uint64_t d_;
  unsigned __int128 c_;
};

// Fisher-Yates shuffles of n values, each as `for (k = n - 1; k > 0; k--) swap(v[k],
// v[rng->below(k + 1)])` gives it, with every modulus prepared once for all the rounds of a
// permutation test (a division per swap was most of the test's time).
class Shuffler {
 public:
  explicit Shuffler(size_t n) {
    for (size_t k = 0; k < n; k++) {
      moduli_.emplace_back(k + 1);
    }
  }
  template <class T>
  void shuffle(std::vector<T>* v, Rng* rng) const {
    for (size_t k = v->empty() ? 0 : v->size() - 1; k > 0; k--) {
      std::swap((*v)[k], (*v)[moduli_[k].of(rng->next())]);
    }
  }

 private:
  std::vector<FixedModulus> moduli_;
};

struct Interval {
  double low;
  double high;
};

// The (1-confidence)/2 and (1+confidence)/2 quantiles of `values` (reordered in place), by linear
// interpolation between order statistics; NaNs are dropped first.
Interval percentile_interval(std::vector<double>* values, double confidence);

// A curve point: line speedup x (0..1) against program speedup y.
struct XY {
  double x;
  double y;
};

// Least-squares slope of y on x through the origin (a line's 0% baseline is y = 0 by
// definition). Points at x = 0 add nothing. Returns 0 when no point has x > 0.
double slope_through_origin(const std::vector<XY>& points);

// y = a x + b x^2, the curve a line's experiments are summarised by (see fit_curve).
struct CurveFit {
  double a = 0;
  double b = 0;
  double at(double x) const { return (a + b * x) * x; }
};

// Weighted least squares of y = a x + b x^2 through the origin, each point weighted by `weights`
// (its experiments): a smooth curve that can bend (a line that stops mattering once it is no
// longer the longest path) and reads between and across noisy single points. With fewer than two
// distinct x > 0 it is the straight line through the origin (b = 0).
CurveFit fit_curve(const std::vector<XY>& points, const std::vector<double>& weights);

// Area-based impact: the area under the piecewise-linear curve over the measured line speedups,
// divided by the largest of them: the mean program speedup over [0, x_max]. Coz's viewer takes
// the best such mean over every prefix [0, x]; a maximum is biased upward by noise (a line with
// no effect shows a positive impact, and its interval excludes 0 far too often), so this uses the
// whole range. `points` sorted by x, starting at the baseline (0, 0). 0 with fewer than 2 points.
double impact(const std::vector<XY>& points);

// The value of the piecewise-linear curve at x; false outside the measured range.
bool interpolate(const std::vector<XY>& points, double x, double* y);

// Benjamini-Hochberg: which hypotheses are rejected at false discovery rate `q`.
std::vector<bool> benjamini_hochberg(const std::vector<double>& p_values, double q);

}  // namespace coz::analysis
