// The page of `coz compare --html` (compare.html): the comparison's JSON (`coz compare --json`)
// as a table of measures, each measure's runs as two distributions (one point per run, the
// geometric mean marked), and, with a profile, the line's curve with the speedup predicted at the
// line's achieved speedup and the one achieved. body[data-rendered] turns "true" once every chart
// has drawn.
'use strict';
import { PALETTE, embedOptions } from './charts.js';
import { $ } from './dom.js';

const signed = (x) => (x >= 0 ? '+' : '') + (x * 100).toFixed(1) + '%';
const interval = (lo, hi) => '[' + signed(lo) + ', ' + signed(hi) + ']';

function valueText(m, v) {
  if (m.latency) {
    return v >= 1 ? v.toPrecision(3) + ' s' : v >= 1e-3 ? (v * 1e3).toPrecision(3) + ' ms' : (v * 1e6).toPrecision(3) + ' us';
  }
  return m.wall_time ? v.toPrecision(3) + ' s' : v.toPrecision(4) + '/s';
}

const measureName = (m) => (m.wall_time ? 'wall time' : m.name + (m.latency ? ' latency' : ''));

function spreadText(m) {
  if (m.layout_spread !== null && m.layout_spread !== undefined) {
    return 'between layouts ±' + (m.layout_spread * 100).toFixed(1) + '%, run to run ±' + (m.run_spread * 100).toFixed(1) + '%';
  }
  return m.total_spread >= 0 ? 'between runs ±' + (m.total_spread * 100).toFixed(1) + '%' : '';
}

function table(result) {
  const body = $('measures').querySelector('tbody');
  for (const m of result.measures) {
    const row = document.createElement('tr');
    row.dataset.measure = m.name;
    const cells = [
      measureName(m),
      valueText(m, m.old),
      valueText(m, m.new),
      signed(m.speedup) + (m.low !== null ? ' ' + interval(m.low, m.high) : '') + ' (' + m.ratio.toPrecision(3) + 'x)',
      m.verdict + (m.p_value !== null ? ', p ' + (m.p_value < 0.001 ? '< 0.001' : '= ' + m.p_value.toFixed(3)) : ''),
      spreadText(m),
    ];
    for (const text of cells) {
      const cell = document.createElement('td');
      cell.textContent = text;
      row.append(cell);
    }
    body.append(row);
  }
}

// One measure's runs: seconds (wall time) or visits per second, old and new, one point a run.
function distributionSpec(result, m) {
  const values = [];
  for (const run of result.run_values) {
    const v = m.wall_time ? run.seconds : m.latency ? (run.latencies || {})[m.name] : run.rates[m.name];
    if (v !== undefined && v !== null) {
      values.push({ program: run.program, value: v, layout: run.layout + 1 });
    }
  }
  const means = [
    { program: 'old', value: m.old },
    { program: 'new', value: m.new },
  ];
  const colour = { field: 'program', type: 'nominal', scale: { domain: ['old', 'new'], range: [PALETTE[1], PALETTE[0]] }, legend: null };
  const x = { field: 'value', type: 'quantitative', scale: { zero: false },
              axis: { title: m.wall_time ? 'seconds a run' : m.latency ? 'mean latency (s)' : 'visits per second', format: '.3~s' } };
  const y = { field: 'program', type: 'nominal', sort: ['old', 'new'], axis: { title: null } };
  return {
    width: 'container',
    height: 90,
    autosize: { type: 'fit-x', contains: 'padding' },
    layer: [
      { data: { values }, mark: { type: 'point', filled: true, opacity: 0.55, size: 45 },
        encoding: { x, y, color: colour,
                    tooltip: [{ field: 'program' }, { field: 'layout' }, { field: 'value', format: '.4~g' }] } },
      { data: { values: means }, mark: { type: 'tick', thickness: 3, size: 26 },
        encoding: { x, y, color: colour, tooltip: [{ field: 'program' }, { field: 'value', title: 'geometric mean', format: '.4~g' }] } },
    ],
  };
}

// The line's curve from the profile, with the predicted point and the achieved one at the line's
// achieved speedup.
function predictionSpec(p) {
  const curve = p.curve.map((c) => ({ x: c.x, y: c.y, low: c.low, high: c.high, what: 'profile' }));
  const marks = [
    { x: p.line_speedup, y: p.predicted, low: p.predicted_low, high: p.predicted_high, what: 'predicted' },
    { x: p.line_speedup, y: p.achieved, low: p.achieved_low, high: p.achieved_high, what: 'achieved' },
  ];
  const colour = { field: 'what', type: 'nominal', title: null, legend: { orient: 'top' },
                   scale: { domain: ['profile', 'predicted', 'achieved'], range: [PALETTE[7], PALETTE[0], PALETTE[5]] } };
  const x = { field: 'x', type: 'quantitative', scale: { domain: [0, 1] }, axis: { format: '.0%', title: 'line speedup' } };
  const y = { field: 'y', type: 'quantitative', title: 'program speedup', axis: { format: '+.0%' } };
  return {
    width: 'container',
    height: 220,
    autosize: { type: 'fit-x', contains: 'padding' },
    layer: [
      { data: { values: p.fit }, mark: { type: 'line', color: '#999', strokeDash: [4, 3] },
        encoding: { x, y } },
      { data: { values: curve.concat(marks) }, mark: { type: 'errorbar', ticks: true },
        encoding: { x, y: { field: 'low', type: 'quantitative', title: 'program speedup' }, y2: { field: 'high' }, color: colour } },
      { data: { values: curve.concat(marks) }, mark: { type: 'point', filled: true, size: 60 },
        encoding: { x, y, color: colour, shape: { field: 'what', type: 'nominal', legend: null,
                                                   scale: { domain: ['profile', 'predicted', 'achieved'], range: ['circle', 'diamond', 'square'] } },
                    tooltip: [{ field: 'what' }, { field: 'x', format: '.1%', title: 'line speedup' },
                              { field: 'y', format: '+.1%', title: 'program speedup' }] } },
    ],
  };
}

function prediction(result, pending) {
  const p = result.prediction;
  if (!p) {
    return;
  }
  $('prediction').hidden = false;
  $('prediction-title').textContent = 'Prediction for ' + p.line + (p.point ? ' at ' + p.point : '');
  if (p.problem) {
    $('prediction-text').textContent = p.problem;
    return;
  }
  $('prediction-text').textContent = 'The line itself is ' + signed(p.line_speedup) + ' ' + interval(p.line_low, p.line_high) +
    ' faster by its samples. Predicted there: ' +
    signed(p.predicted) + ' ' + interval(p.predicted_low, p.predicted_high) + '; achieved: ' + signed(p.achieved) + ' ' +
    interval(p.achieved_low, p.achieved_high) + (p.consistent ? ': consistent.' : ': not consistent.');
  pending.push(vegaEmbed($('prediction-chart'), predictionSpec(p), embedOptions));
}

function main() {
  const node = document.getElementById('coz-compare');
  const result = node ? JSON.parse(node.textContent) : null;
  if (!result || !Array.isArray(result.measures)) {
    $('summary-text').textContent = 'This page holds no comparison: write one with coz compare --html FILE.';
    document.body.dataset.rendered = 'true';
    return;
  }
  $('commands').textContent = 'old: ' + result.old + ' | new: ' + result.new;
  $('summary-text').textContent = result.runs + ' runs: ' + result.layouts + (result.fixed_layout ? ' rounds at one fixed layout, ' : ' layouts, ') +
    result.repeats + ' of each program at each, in random order; ' + Math.round(result.confidence * 100) + '% intervals. ' +
    'Speedup: 1 - new time / old time.';
  const warnings = $('warnings');
  for (const why of result.not_compared) {
    const item = document.createElement('li');
    item.textContent = 'not compared: ' + why;
    warnings.append(item);
  }
  table(result);
  const pending = [];
  const section = $('distributions');
  for (const m of result.measures) {
    const card = document.createElement('div');
    card.className = 'chart-card compare-card';
    card.dataset.measure = m.name;
    const title = document.createElement('h3');
    title.textContent = measureName(m) + ': ' + signed(m.speedup) + ' ' + m.verdict;
    const chart = document.createElement('div');
    chart.className = 'wide-chart';
    card.append(title, chart);
    section.append(card);
    pending.push(vegaEmbed(chart, distributionSpec(result, m), embedOptions));
  }
  prediction(result, pending);
  Promise.allSettled(pending).then((outcomes) => {
    for (const o of outcomes) {
      if (o.status === 'rejected') {
        console.error('chart failed:', o.reason);
      }
    }
    document.body.dataset.rendered = 'true';
  });
}

main();
