// The data as the controls ask for it: the lines to draw, each with its series at the chosen
// points and levels (phase-corrected or not), ranked as asked, and the y range they share.
import { percent } from './format.js';
import { profile, pointKey, displayName, pointLabel } from './profile.js';
import { ALL } from './state.js';

// One series seen with or without phase correction; `key` names it in the legend and colours.
function view(series, phase, key) {
  const scale = phase || !(series.phase_factor > 0) ? 1 : 1 / series.phase_factor;
  const points = series.curve.map((p) => {
    const low = p.low === null ? null : p.low * scale;
    const high = p.high === null ? null : p.high * scale;
    return {
      x: p.line_speedup,
      y: phase ? p.program_speedup : p.uncorrected,
      low: low,
      high: high,
      interval: low === null ? 'none' : percent(low) + ' to ' + percent(high),
      experiments: p.experiments,
      visits: p.visits,
      level: series.load,
      point: series.point,
      key: key,
      line: series.line,
    };
  });
  return {
    series: series,
    key: key,
    points: points,
    impact: series.impact.value * scale,
    impactLow: series.impact.low === null ? null : series.impact.low * scale,
    impactHigh: series.impact.high === null ? null : series.impact.high * scale,
    slope: series.slope.value * scale,
    max: series.max_speedup * scale,
  };
}

// What tells a line's series apart: the load level for one progress point; the point when
// they are overlaid (and the level too when several are shown).
function seriesKey(s, state) {
  if (state.point !== ALL) {
    return s.load;
  }
  const label = pointLabel(s.kind, s.point);
  return state.levels.length > 1 ? label + ' @ ' + s.load : label;
}

// Every key the current view can show, in legend order (fixes the colours).
export function keysOf(state) {
  if (state.point !== ALL) {
    return profile.levelLabels.slice();
  }
  const names = profile.report.progress_points.map((p) => pointLabel(p.kind, p.name));
  return state.levels.length > 1 ? names.flatMap((n) => state.levels.map((l) => n + ' @ ' + l)) : names;
}

// Lines to draw: each with its series at the selected points and levels, sorted as asked.
export function selectLines(state) {
  const byLine = new Map();
  const needle = state.filter.toLowerCase();
  const shown = (s) => (state.point === ALL ? !state.hidden.includes(pointKey(s)) : pointKey(s) === state.point);
  for (const s of profile.report.series) {
    if (!shown(s) || !state.levels.includes(s.load) || s.curve.length < state.min) {
      continue;
    }
    if (needle && !s.line.toLowerCase().includes(needle) && !displayName(s).toLowerCase().includes(needle)) {
      continue;
    }
    if (!byLine.has(s.line)) {
      byLine.set(s.line, { line: s.line, display: displayName(s), file: s.file, number: s.line_number, views: [] });
    }
    byLine.get(s.line).views.push(view(s, state.phase, seriesKey(s, state)));
  }
  const lines = Array.from(byLine.values());
  const best = (line, key) => Math.max(...line.views.map((v) => v[key]));
  const compare = {
    impact: (a, b) => best(b, 'impact') - best(a, 'impact'),
    slope: (a, b) => best(b, 'slope') - best(a, 'slope'),
    max: (a, b) => best(b, 'max') - best(a, 'max'),
    name: () => 0,
  }[state.sort];
  // Ties, and the name order: by file, then by line number as a number (a.c:7 before a.c:105).
  const byName = (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.number - b.number);
  lines.sort((a, b) => compare(a, b) || byName(a, b));
  return lines;
}

// One y scale for every chart, so heights compare across lines.
export function sharedDomain(lines) {
  let lo = 0;
  let hi = 0;
  for (const line of lines) {
    for (const v of line.views) {
      for (const p of v.points) {
        lo = Math.min(lo, p.y, p.low === null ? p.y : p.low);
        hi = Math.max(hi, p.y, p.high === null ? p.y : p.high);
      }
    }
  }
  const pad = Math.max(0.02, (hi - lo) * 0.05);
  return [Math.max(-1, lo - pad), Math.min(2, hi + pad)];
}
