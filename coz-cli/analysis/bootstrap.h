// Intervals by bootstrap over experiments, for every line of one progress point at once: the
// noise of one experiment about its group's mean, measured over the point's experiments, and
// replicates that redraw every experiment and every baseline (see
// docs/reading.md). Pure: numbers in, intervals out, from a seeded Rng.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/causal_profile.h"
#include "analysis/series_builder.h"
#include "analysis/statistics.h"
#include "analysis/time_matching.h"

namespace coz::analysis {

// A family: the experiments of one progress point at one load level, every line's, with their
// time-matched costs and the noise of one experiment about its group's mean: what each line's
// series at that point is built and bootstrapped from.
struct Family {
  std::vector<Observation> obs;
  // Per observation: the line it tested, as the line's rank by name among the lines tested.
  std::vector<uint32_t> line;
  std::vector<TimedCost> timed;
  TimeMatch match;
  Group baseline;  // every baseline, matched
  // Residuals about their group's mean (each speedup of each line, and the baselines), each
  // times (visits / typical_visits)^(exponent / 2): the noise of an experiment of typical_visits.
  std::vector<double> residuals;
  double exponent = 0;  // noise shrinks as visits^-exponent/2: 0 not at all, 1 as counting noise
  double typical_visits = 1;

  std::vector<double> scale;  // per observation: (typical_visits / its visits)^(exponent / 2)
  FixedModulus pool{1};       // residuals.size(): a draw's place in the pool is next() mod it
};

// The pool needs this many degrees of freedom for intervals (a group of n experiments gives n - 1:
// two alike experiments give two residuals of one value): fewer say little about the spread.
inline constexpr size_t kMinDegrees = 5;

// Residuals of every group of two or more experiments, and how their size depends on the
// experiment's visits: mean squared residual of the experiments with fewer visits than the median
// against those with more, as a power of their typical visits (clamped to counting noise at most
// and no growth). Experiments of different lengths then get noise of their own size. Fills
// `residuals`, `exponent`, `typical_visits` and `scale`; no residuals when there are fewer than
// kMinDegrees degrees of freedom.
void measure_noise(Family* f);

// A series of the family being built: the groups behind its curve's non-zero points (in curve
// order) and their experiments.
struct SeriesDraft {
  Series series;
  std::vector<Group> groups;
  std::vector<std::vector<size_t>> members;  // per group: indices into the family's obs
  std::vector<double> weights;               // of the fitted curve (fit_weights)
  std::vector<size_t> experiments;           // every experiment of the line, its baselines too
};

// Bootstrap by residuals, for every series of a family at once. In each replicate every
// experiment is drawn again as its group's mean (a line's speedup, or all baselines) times one
// plus a residual from the family's pool, scaled to its visits, at the reference of its time;
// each reference is then recomputed from the redrawn baselines of its window. So a speedup
// measured once gets the spread that the program's experiments show about their means (not the
// counting noise inside one experiment), and the comparison carries the noise of the baselines
// it is made with, shared where windows overlap. Gives intervals for every curve point, the
// slope, the impact and the predictions; none without a pool.
//
// The baselines are redrawn once per replicate for every series; each series' replicates are
// then computed and summarised a batch of series at a time (on every core), so memory holds one
// batch's replicates, not every line's. The draws are those of one loop over replicates, then
// series, in order: the intervals do not depend on the batching or the threads.
// Adds each batch's experiments to `done` as it finishes.
void bootstrap(const Family& f, std::vector<SeriesDraft>* drafts, const AnalysisOptions& o,
               bool matching, Rng* rng, std::atomic<size_t>* done);

}  // namespace coz::analysis
