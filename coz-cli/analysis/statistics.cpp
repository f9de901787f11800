// Statistics for causal profiles (see statistics.h).
#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace coz::analysis {

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

// The q-quantile of `values` by linear interpolation between order statistics, as a sort would
// give it, found by selection among values[from, end), which must hold every order statistic from
// `from` on (linear time: sorting every bootstrap's replicates was most of `coz report`'s time on
// profiles of thousands of lines). Reorders the values; `*lo_out` receives the lower order
// statistic's index, before which no value is larger.
double select_quantile(std::vector<double>* values, size_t from, double q, size_t* lo_out) {
  std::vector<double>& v = *values;
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = std::max(from, static_cast<size_t>(std::floor(pos)));
  auto at = [&](size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
  std::nth_element(at(from), at(lo), v.end());
  double low = v[lo];
  // The next order statistic is the smallest value after the lower one.
  double high = lo + 1 < v.size() ? *std::min_element(at(lo + 1), v.end()) : low;
  *lo_out = lo;
  return low + (high - low) * (pos - static_cast<double>(lo));
}

}  // namespace

Interval percentile_interval(std::vector<double>* values, double confidence) {
  // A NaN would break the selection's ordering (and its bounds); bounded inputs should give none.
  values->erase(
      std::remove_if(values->begin(), values->end(), [](double v) { return std::isnan(v); }),
      values->end());
  if (values->empty()) {
    return Interval{NAN, NAN};
  }
  double tail = (1 - confidence) / 2;
  size_t lo = 0;
  double low = select_quantile(values, 0, tail, &lo);
  // The upper quantile's order statistics lie at or after the lower one's index.
  double high = select_quantile(values, lo, 1 - tail, &lo);
  return Interval{low, high};
}

double slope_through_origin(const std::vector<XY>& points) {
  double xy = 0, xx = 0;
  for (const XY& p : points) {
    xy += p.x * p.y;
    xx += p.x * p.x;
  }
  return xx > 0 ? xy / xx : 0;
}

CurveFit fit_curve(const std::vector<XY>& points, const std::vector<double>& weights) {
  // Normal equations of the two-parameter fit.
  double s2 = 0, s3 = 0, s4 = 0, t1 = 0, t2 = 0;
  size_t distinct = 0;
  double last_x = 0;
  for (size_t i = 0; i < points.size(); i++) {
    double x = points[i].x, y = points[i].y, w = i < weights.size() ? weights[i] : 1;
    if (x <= 0 || w <= 0) {
      continue;
    }
    distinct += x != last_x;
    last_x = x;
    s2 += w * x * x;
    s3 += w * x * x * x;
    s4 += w * x * x * x * x;
    t1 += w * x * y;
    t2 += w * x * x * y;
  }
  CurveFit fit;
  double det = s2 * s4 - s3 * s3;
  if (distinct >= 2 && det > 1e-12 * s2 * s4) {
    fit.a = (t1 * s4 - t2 * s3) / det;
    fit.b = (s2 * t2 - s3 * t1) / det;
  } else if (s2 > 0) {
    fit.a = t1 / s2;
  }
  return fit;
}

double impact(const std::vector<XY>& points) {
  if (points.size() < 2 || points.back().x <= 0) {
    return 0;
  }
  double area = 0;
  for (size_t i = 1; i < points.size(); i++) {
    area += (points[i].x - points[i - 1].x) * (points[i].y + points[i - 1].y) / 2;
  }
  return area / points.back().x;
}

bool interpolate(const std::vector<XY>& points, double x, double* y) {
  for (size_t i = 0; i < points.size(); i++) {
    if (std::fabs(points[i].x - x) < 1e-9) {
      *y = points[i].y;
      return true;
    }
    if (i > 0 && points[i - 1].x < x && x < points[i].x) {
      double t = (x - points[i - 1].x) / (points[i].x - points[i - 1].x);
      *y = points[i - 1].y + t * (points[i].y - points[i - 1].y);
      return true;
    }
  }
  return false;
}

std::vector<bool> benjamini_hochberg(const std::vector<double>& p_values, double q) {
  size_t m = p_values.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  // The largest rank k with p(k) <= k q / m; every hypothesis up to it is rejected.
  size_t cut = 0;
  for (size_t k = 1; k <= m; k++) {
    if (p_values[order[k - 1]] <= static_cast<double>(k) * q / static_cast<double>(m)) {
      cut = k;
    }
  }
  std::vector<bool> rejected(m, false);
  for (size_t k = 0; k < cut; k++) {
    rejected[order[k]] = true;
  }
  return rejected;
}

}  // namespace coz::analysis
