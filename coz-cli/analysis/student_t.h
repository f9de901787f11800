// Student's t distribution, for intervals and tests over a handful of independent measurements
// (coz compare's layouts): its distribution function and quantiles. Pure.
#pragma once

namespace coz::analysis {

// P(T <= t) for T with `df` degrees of freedom (df > 0).
double student_t_cdf(double t, double df);

// The t with P(T <= t) = p, for 0 < p < 1 and df > 0.
double student_t_quantile(double p, double df);

}  // namespace coz::analysis
