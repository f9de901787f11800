// Student's t (see student_t.h), through the regularised incomplete beta function: for T with
// df degrees of freedom, P(|T| > t) = I_x(df / 2, 1 / 2) with x = df / (df + t^2). The beta
// function's continued fraction is evaluated by the modified Lentz method (Press et al.,
// Numerical Recipes, section 6.4); quantiles by bisection on the distribution function.
#include "analysis/student_t.h"

#include <cmath>

namespace coz::analysis {
namespace {

// The continued fraction of I_x(a, b), good for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1;
  double d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
  double h = d;
  for (int m = 1; m <= 300; m++) {
    double m2 = 2.0 * m;
    // The even step, then the odd one.
    double even = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + even * d;
    d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
    c = 1 + even / (std::fabs(c) < kTiny ? kTiny : c);
    h *= d * c;
    double odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + odd * d;
    d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
    c = 1 + odd / (std::fabs(c) < kTiny ? kTiny : c);
    double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEpsilon) {
      break;
    }
  }
  return h;
}

// The regularised incomplete beta function I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) {
    return 0;
  }
  if (x >= 1) {
    return 1;
  }
  double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                          b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) {
    return front * beta_fraction(a, b, x) / a;
  }
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

}  // namespace

double student_t_cdf(double t, double df) {
  double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));  // P(T > |t|)
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (p == 0.5) {
    return 0;
  }
  double lo = -1;
  double hi = 1;
  while (student_t_cdf(lo, df) > p) {
    lo *= 2;
  }
  while (student_t_cdf(hi, df) < p) {
    hi *= 2;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + std::fabs(lo)); i++) {
    double mid = (lo + hi) / 2;
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double normal_quantile(double p) {
  double lo = -40;
  double hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
    double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace coz::analysis
