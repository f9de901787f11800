// Student's t distribution, for intervals and tests over a handful of independent measurements
// (coz compare's layouts): its distribution function and quantiles; and the normal's quantiles.
// Pure.
#pragma once

namespace coz::analysis {

// P(T <= t) for T with `df` degrees of freedom (df > 0).
double student_t_cdf(double t, double df);

// The t with P(T <= t) = p, for 0 < p < 1 and df > 0 (up to about 1e6: beyond it, the normal's).
double student_t_quantile(double p, double df);

// The standard normal's z with P(Z <= z) = p, for 0 < p < 1.
double normal_quantile(double p);

}  // namespace coz::analysis
