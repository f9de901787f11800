// The coz-amp viewer: renders the JSON of `coz report --json` (schema coz-amp-report v1, see
// coz-cli/output/REPORT_JSON.md) as one small Vega-Lite chart per line, with controls whose
// state lives in the URL. The entry point: draws a view, and again whenever the state changes.
'use strict';  // modules are strict already; this carries it to the bundle, a classic script
import { card } from './cards.js';
import { charts } from './charts.js';
import { bindControls, fillControls } from './controls.js';
import { $ } from './dom.js';
import { floorText } from './format.js';
import { bindOpening } from './opening.js';
import { profile, isReport } from './profile.js';
import { open } from './reader.js';
import { scalabilityCharts } from './scalability.js';
import { keysOf, selectLines, sharedDomain } from './select.js';
import { lastHash, readState, writeState } from './state.js';
import { summary } from './summary.js';

function render(state) {
  const report = profile.report;
  charts.reset();
  writeState(state);
  const grid = $('charts');
  grid.textContent = '';
  const lines = selectLines(state);
  const domain = sharedDomain(lines);
  const keys = keysOf(state);
  for (const line of lines) {
    grid.append(card(line, domain, keys, state.phase));
  }
  scalabilityCharts(state);
  const empty = $('empty');
  empty.hidden = lines.length > 0;
  empty.textContent = report.diagnosis
    ? (report.scalability.length ? 'No causal profile: ' : 'Nothing to show: ') + report.diagnosis.message
    : 'No line matches: lower "min points", clear the filter, or pick another progress point or load level.';
  $('legend-note').textContent = lines.length
    ? lines.length + (lines.length === 1 ? ' line' : ' lines') + '. Points: program speedup at each line speedup, ' +
      'bars: ' + Math.round(report.settings.confidence * 100) + '% intervals, dashed: least-squares slope. ' +
      'Flags need an impact of at least ' + floorText(report) + ' (the profiler\'s own bias). ' +
      'Click a chart for its source; its menu exports SVG or PNG.'
    : '';
  charts.start();
}

function main() {
  if (!isReport(profile.report)) {
    $('empty').hidden = false;
    $('empty').textContent = 'This page holds no coz-amp report (schema coz-amp-report, version 1). Write one with coz plot PROFILE.';
    document.body.dataset.rendered = 'true';
    return;
  }
  summary();
  const state = readState();
  // refill: the point menu or the report changed, so the legend and menus are rebuilt.
  const show = (refill) => {
    if (refill) {
      fillControls(state, () => show(true));
    }
    render(state);
  };
  bindControls(state, show);
  bindOpening(state, show);
  show(true);
  // Editing the URL, or going back, shows the view it names.
  window.addEventListener('hashchange', () => {
    if (location.hash.slice(1) === lastHash) {
      return;
    }
    Object.assign(state, readState());
    show(true);
  });
}

// The reader, as the page's console and its browser tests reach it.
window.cozReader = { open: open };
main();
