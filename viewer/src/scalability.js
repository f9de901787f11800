// The scalability section: throughput and latency against load, when the report has two load
// levels or more among those shown.
import { PALETTE, charts } from './charts.js';
import { $ } from './dom.js';
import { profile } from './profile.js';

export function scalabilityCharts(state) {
  const rows = profile.report.scalability.filter((r) => state.levels.includes(r.load));
  const levels = new Set(rows.map((r) => r.load));
  $('scalability').hidden = levels.size < 2;  // one level is a point, not a curve
  if (levels.size < 2) {
    return;
  }
  const data = rows.map((r) => ({
    point: r.point, load: r.target, label: r.load, achieved: r.achieved_load,
    throughput: r.throughput_per_s.value, low: r.throughput_per_s.low, high: r.throughput_per_s.high,
    latency: r.latency_ns ? r.latency_ns.value / 1e6 : null,
  }));
  const x = { field: 'load', type: 'quantitative', title: 'load (times the measured arrival rate)',
              scale: { zero: false }, axis: { format: '.2~f' } };
  const colourByPoint = { field: 'point', type: 'nominal', scale: { range: PALETTE }, title: 'progress point' };
  const tooltip = [{ field: 'point' }, { field: 'label', title: 'load' }, { field: 'achieved', title: 'achieved', format: '.2f' },
                   { field: 'throughput', title: 'visits/s', format: ',.1f' }, { field: 'latency', title: 'latency (ms)', format: '.3f' }];
  charts.draw($('throughput-chart'), {
    width: 360, height: 200, data: { values: data }, title: 'throughput against load',
    layer: [
      { mark: { type: 'line', point: true }, encoding: { x: x, y: { field: 'throughput', type: 'quantitative', title: 'visits per second' }, color: colourByPoint, tooltip: tooltip } },
      { transform: [{ filter: 'datum.low !== null' }], mark: 'rule', encoding: { x: x, y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' }, color: colourByPoint } },
    ],
  });
  const latency = data.filter((d) => d.latency !== null);
  $('latency-chart').hidden = latency.length === 0;
  if (latency.length) {
    charts.draw($('latency-chart'), {
      width: 360, height: 200, data: { values: latency }, title: 'latency against load',
      mark: { type: 'line', point: true },
      encoding: { x: x, y: { field: 'latency', type: 'quantitative', title: 'mean latency (ms)' }, color: colourByPoint, tooltip: tooltip },
    });
  }
}
