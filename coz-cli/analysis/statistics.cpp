// Statistics for causal profiles (see statistics.h).
#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace coz::analysis {

uint64_t Rng::next() {
  uint64_t z = (state_ += kStep);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

// The order statistics lo and lo + 1 of `values` (ascending, or descending with `from_top`);
// lo + 1 clipped to the last. A tail quantile of a thousand bootstrap replicates needs only a few
// of them: a threshold from a sample of the values (one that about twice as many values pass as
// are needed) keeps those that pass in one branch-free pass, and the order statistics are found
// among them; when too few pass, among all. Whichever way, exactly the order statistics a sort
// would give.
template <class Before>
std::pair<double, double> order_pair(const std::vector<double>& values, size_t lo,
                                     std::vector<double>* kept, Before before) {
  const size_t n = values.size(), need = std::min(n, lo + 2);
  kept->clear();
  constexpr size_t kSample = 128;
  if (n >= 4 * kSample && need * 8 <= n) {
    kept->assign(values.begin(), values.begin() + kSample);
    size_t rank = std::min(kSample - 1, 2 * need * kSample / n);
    std::nth_element(kept->begin(), kept->begin() + static_cast<long>(rank), kept->end(), before);
    const double threshold = (*kept)[rank];
    kept->resize(n);
    size_t passed = 0;
    for (double v : values) {
      (*kept)[passed] = v;
      passed += !before(threshold, v);
    }
    kept->resize(passed);
  }
  if (kept->size() < need) {
    kept->assign(values.begin(), values.end());
  }
  // The lo-th by selection; the next is the least of those after it.
  auto at = [&](size_t i) { return kept->begin() + static_cast<long>(i); };
  std::nth_element(at(0), at(lo), kept->end(), before);
  const double low = (*kept)[lo];
  const double high = lo + 1 < need ? *std::min_element(at(lo + 1), kept->end(), before) : low;
  return {low, high};
}

// The q-quantile of `values` by linear interpolation between the order statistics around
// q (n - 1), as a sort would give it.
double quantile(const std::vector<double>& values, double q, std::vector<double>* kept) {
  const size_t n = values.size();
  const double pos = q * static_cast<double>(n - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  double low, high;
  if (lo < n / 2) {
    std::tie(low, high) = order_pair(values, lo, kept, std::less<double>());
  } else {
    // From the top: the (n - 1 - lo)th largest (from 0), and the one above it.
    const size_t r = n - 1 - lo;
    std::tie(high, low) = order_pair(values, r > 0 ? r - 1 : 0, kept, std::greater<double>());
    if (r == 0) {
      low = high;
    }
  }
  return low + (high - low) * (pos - static_cast<double>(lo));
}

}  // namespace

Interval percentile_interval(std::vector<double>* values, double confidence) {
  // A NaN would break the ordering; bounded inputs should give none.
  values->erase(
      std::remove_if(values->begin(), values->end(), [](double v) { return std::isnan(v); }),
      values->end());
  if (values->empty()) {
    return Interval{NAN, NAN};
  }
  double tail = (1 - confidence) / 2;
  std::vector<double> kept;
  return Interval{quantile(*values, tail, &kept), quantile(*values, 1 - tail, &kept)};
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
