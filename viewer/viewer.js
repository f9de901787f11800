// The coz-amp viewer: renders the JSON of `coz report --json` (schema coz-amp-report v1, see
// coz-cli/output/REPORT_JSON.md) as one small Vega-Lite chart per line, with controls whose state
// lives in the URL. Every string from the profile is untrusted: it reaches the page only through
// textContent, element properties and Vega data, never as markup.
(function () {
  'use strict';

  // Okabe-Ito: distinguishable with the common colour-vision deficiencies.
  const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];
  const $ = (id) => document.getElementById(id);

  function readJson(id, fallback) {
    const el = $(id);
    if (!el || !el.textContent.trim()) {
      return fallback;
    }
    return JSON.parse(el.textContent);
  }

  const report = readJson('coz-report', null);
  const sources = readJson('coz-sources', {});
  // Files the profile names whose source coz plot did not embed, and why ("hidden path", ...).
  const leftOutList = readJson('coz-sources-left-out', []);
  const leftOut = new Map((Array.isArray(leftOutList) ? leftOutList : [])
    .filter((l) => l && typeof l.file === 'string' && typeof l.reason === 'string')
    .map((l) => [l.file, l.reason]));

  function el(tag, props, children) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children || []) {
      node.append(child);
    }
    return node;
  }

  function percent(v, digits) {
    if (v === null || v === undefined || !isFinite(v)) {
      return '-';
    }
    return (v >= 0 ? '+' : '') + (v * 100).toFixed(digits === undefined ? 1 : digits) + '%';
  }

  function seconds(ns) {
    return ns >= 1e9 ? (ns / 1e9).toFixed(1) + ' s' : (ns / 1e6).toFixed(0) + ' ms';
  }

  // --- state, kept in the URL's hash so a view can be shared or reloaded -----------------------
  const pointKey = (s) => s.kind + ':' + s.point;
  const levelLabels = report ? report.load_levels.map((l) => l.label) : [];

  function defaultPoint() {
    const counts = new Map();
    for (const s of report.series) {
      counts.set(pointKey(s), (counts.get(pointKey(s)) || 0) + 1);
    }
    let best = report.progress_points.length ? report.progress_points[0].kind + ':' + report.progress_points[0].name : '';
    let most = 0;
    for (const [key, n] of counts) {
      if (n > most) {
        best = key;
        most = n;
      }
    }
    return best;
  }

  const viewDefaults = readJson('coz-view', {});
  const defaultMin = viewDefaults.min_points >= 2 && viewDefaults.min_points <= 21 ? viewDefaults.min_points : 5;

  // The state the URL asks for, with anything unknown or empty replaced by its default, so no
  // URL can leave a page the controls cannot bring back.
  function readState() {
    const params = new URLSearchParams(location.hash.slice(1));
    const min = parseInt(params.get('min'), 10);
    let levels = params.has('levels') ? params.get('levels').split(',').filter((l) => levelLabels.includes(l)) : [];
    if (levels.length === 0) {
      levels = levelLabels.slice();
    }
    const points = report.progress_points.map((p) => p.kind + ':' + p.name);
    return {
      sort: ['impact', 'slope', 'max', 'name'].includes(params.get('sort')) ? params.get('sort') : 'impact',
      min: min >= 2 && min <= 21 ? min : defaultMin,
      filter: params.get('q') || '',
      point: points.includes(params.get('point')) ? params.get('point') : defaultPoint(),
      levels: levels,
      phase: params.get('phase') !== '0',
    };
  }

  function writeState(state) {
    const params = new URLSearchParams();
    params.set('sort', state.sort);
    params.set('min', String(state.min));
    if (state.filter) {
      params.set('q', state.filter);
    }
    params.set('point', state.point);
    params.set('levels', state.levels.join(','));
    params.set('phase', state.phase ? '1' : '0');
    lastHash = params.toString();
    history.replaceState(null, '', '#' + lastHash);
  }
  let lastHash = '';

  // --- the data as the controls ask for it ----------------------------------------------------
  // One series seen with or without phase correction.
  function view(series, phase) {
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
        line: series.line,
      };
    });
    return {
      series: series,
      points: points,
      impact: series.impact.value * scale,
      impactLow: series.impact.low === null ? null : series.impact.low * scale,
      impactHigh: series.impact.high === null ? null : series.impact.high * scale,
      slope: series.slope.value * scale,
      max: series.max_speedup * scale,
    };
  }

  // The line as titles show it: the report's shortest unambiguous path suffix ("a/mod.rs:638"),
  // or the base name for a report written before it had one. The full path goes in tooltips.
  function displayName(series) {
    return typeof series.display === 'string' ? series.display : series.line.split('/').pop();
  }

  // Lines to draw: each with its series at the selected levels, sorted as asked.
  function selectLines(state) {
    const byLine = new Map();
    const needle = state.filter.toLowerCase();
    for (const s of report.series) {
      if (pointKey(s) !== state.point || !state.levels.includes(s.load) || s.curve.length < state.min) {
        continue;
      }
      if (needle && !s.line.toLowerCase().includes(needle) && !displayName(s).toLowerCase().includes(needle)) {
        continue;
      }
      if (!byLine.has(s.line)) {
        byLine.set(s.line, { line: s.line, display: displayName(s), file: s.file, number: s.line_number, views: [] });
      }
      byLine.get(s.line).views.push(view(s, state.phase));
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
  function sharedDomain(lines) {
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

  // --- charts -----------------------------------------------------------------------------------
  const colour = { field: 'level', type: 'nominal', scale: { domain: levelLabels, range: PALETTE }, legend: null };

  function lineSpec(line, domain) {
    const points = [];
    const fits = [];
    for (const v of line.views) {
      points.push(...v.points);
      const xmax = Math.max(...v.points.map((p) => p.x));
      fits.push({ x: 0, y: 0, level: v.series.load }, { x: xmax, y: v.slope * xmax, level: v.series.load });
    }
    // A few pixels of padding, so points at 0% and 100% are not cut by the clipping.
    const x = { field: 'x', type: 'quantitative', scale: { domain: [0, 1], padding: 6 },
                axis: { format: '.0%', title: 'line speedup', tickCount: 5 } };
    const y = { field: 'y', type: 'quantitative', scale: { domain: domain, zero: false, nice: false, padding: 6 },
                axis: { format: '+.0%', title: 'program speedup', tickCount: 5 } };
    return {
      width: 280,
      height: 150,
      data: { values: points },
      layer: [
        { data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#999', clip: true },
          encoding: { y: { field: 'zero', type: 'quantitative', scale: y.scale } } },
        { transform: [{ filter: 'datum.low !== null' }], mark: { type: 'rule', strokeWidth: 1.5, clip: true },
          encoding: { x: x, y: { field: 'low', type: 'quantitative', scale: y.scale }, y2: { field: 'high' }, color: colour } },
        { data: { values: fits }, mark: { type: 'line', strokeDash: [4, 3], strokeWidth: 1.2, clip: true },
          encoding: { x: x, y: y, color: colour, detail: { field: 'level' } } },
        { mark: { type: 'point', filled: true, size: 45, clip: true },
          encoding: {
            x: x, y: y, color: colour,
            tooltip: [
              { field: 'line', title: 'line' },
              { field: 'level', title: 'load' },
              { field: 'x', title: 'line speedup', format: '.0%' },
              { field: 'y', title: 'program speedup', format: '+.1%' },
              { field: 'interval', title: 'interval' },
              { field: 'experiments', title: 'experiments' },
              { field: 'visits', title: 'visits', format: ',' },
            ],
          } },
      ],
    };
  }

  const embedOptions = {
    mode: 'vega-lite',
    renderer: 'svg',
    actions: { export: true, source: false, compiled: false, editor: false },
  };

  // Draws charts as they come near the viewport, so a profile of hundreds of lines opens at once.
  // body[data-rendered] turns "true" when every chart started so far has drawn.
  const charts = {
    pending: new Set(),
    settled: false,
    observer: null,
    views: [],
    reset() {
      if (this.observer) {
        this.observer.disconnect();
      }
      for (const v of this.views) {
        v.finalize();  // release the old charts' listeners and timers
      }
      this.views = [];
      this.settled = false;
      document.body.dataset.rendered = 'false';
      this.observer = new IntersectionObserver((entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) {
            this.observer.unobserve(entry.target);
            entry.target.cozDraw();
          }
        }
      }, { rootMargin: '300px' });
    },
    lazy(node, spec) {
      node.cozDraw = () => this.draw(node, spec);
      this.observer.observe(node);
    },
    draw(node, spec) {
      document.body.dataset.rendered = 'false';
      const done = vegaEmbed(node, spec, embedOptions)
        .then((result) => { this.views.push(result); })
        .catch((error) => console.error('chart failed:', error))
        .finally(() => { this.pending.delete(done); this.check(); });
      this.pending.add(done);
    },
    // After the observer's first look at every card (within two frames), wait for what it drew.
    start() {
      requestAnimationFrame(() => requestAnimationFrame(() => { this.settled = true; this.check(); }));
    },
    check() {
      if (this.settled && this.pending.size === 0) {
        document.body.dataset.rendered = 'true';
      }
    },
  };

  function card(line, domain, phaseOn) {
    const title = el('h3', { textContent: line.display, title: line.line });
    // One badge per finding, naming the load levels it holds at when there are several.
    const badge = (cls, text, tip, holds) => {
      const levels = line.views.filter((v) => holds(v.series)).map((v) => v.series.load);
      if (levels.length) {
        const suffix = line.views.length > 1 ? ' ' + levels.join(', ') : '';
        title.append(el('span', { className: 'badge ' + cls, textContent: text + suffix, title: tip }));
      }
    };
    badge('contention', 'contention', 'speeding this line up slows the program (significant downward slope)', (s) => s.contention);
    badge('significant', 'significant', 'the line\'s speedup changes the program\'s (permutation test, 5% false discovery rate)',
          (s) => s.significant && !s.contention);
    const phased = phaseOn && line.views.find((v) => v.series.phase_corrected && v.series.phase_factor < 0.95);
    if (phased) {
      title.append(el('span', { className: 'badge phase', textContent: 'phase \u00d7' + phased.series.phase_factor.toFixed(2),
                                title: 'active during this share of the run; speedups scaled by it (eq. 5.8)' }));
    }
    const stats = el('p', { className: 'stats' });
    stats.textContent = line.views.map((v) => {
      const ci = v.impactLow === null ? '' : ' [' + percent(v.impactLow) + ', ' + percent(v.impactHigh) + ']';
      return (line.views.length > 1 ? v.series.load + ': ' : '') + 'impact ' + percent(v.impact) + ci +
             ', slope ' + v.slope.toFixed(2) + ', ' + v.series.experiments + ' experiments';
    }).join('; ');
    const chart = el('div', { className: 'chart' });
    const node = el('article', { className: 'chart-card' }, [title, stats, chart]);
    node.dataset.line = line.line;
    node.addEventListener('click', (event) => {
      if (!event.target.closest('.vega-actions, details')) {
        showSource(line);
      }
    });
    charts.lazy(chart, lineSpec(line, domain));
    return node;
  }

  function showSource(line) {
    const panel = $('source');
    $('source-title').textContent = line.line;
    const pre = $('source-text');
    pre.textContent = '';
    const lines = Object.hasOwn(sources, line.file) ? sources[line.file] : null;
    if (!lines && leftOut.has(line.file)) {
      pre.textContent = 'Source not shown: ' + leftOut.get(line.file) + '.';
    } else if (!lines) {
      pre.textContent = 'No source for this file in the report (coz plot --no-source, or the file was not found).';
    } else {
      const near = (n) => Math.abs(n - line.number) <= 4;  // coz plot embeds four lines each side
      for (const n of Object.keys(lines).map(Number).filter(near).sort((a, b) => a - b)) {
        const row = el('span', { textContent: String(n).padStart(6) + '  ' + lines[n] + '\n' });
        if (n === line.number) {
          row.className = 'here';
        }
        pre.append(row);
      }
    }
    panel.hidden = false;
  }

  function scalabilityCharts(state) {
    const rows = report.scalability.filter((r) => state.levels.includes(r.load));
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

  // --- the page -------------------------------------------------------------------------------
  function summary() {
    const s = report.summary;
    const parts = [];
    if (s.programs && s.programs.length) {
      parts.push(s.programs.join(', '));
    }
    parts.push(s.runs + (s.runs === 1 ? ' run' : ' runs'), seconds(s.runtime_ns), s.experiments + ' experiments',
               s.lines_tested + ' lines tested');
    $('summary-text').textContent = parts.join(' \u00b7 ');
    const warnings = $('warnings');
    for (const w of report.warnings) {
      warnings.append(el('li', { textContent: w }));
    }
    for (const input of report.inputs) {
      if (input.errors.length) {
        const count = input.errors.length + (input.errors_left_out || 0);
        warnings.append(el('li', { textContent: input.file + ': ' + count + ' malformed lines skipped (first: line ' +
                                                  input.errors[0].line + ', ' + input.errors[0].message + ')' }));
      }
    }
    if (leftOut.size) {
      const shown = 10;
      const names = Array.from(leftOut, ([file, reason]) => file + ' (' + reason + ')');
      const note = $('source-note');
      note.textContent = 'Source not shown for ' + names.length + (names.length === 1 ? ' file: ' : ' files: ') +
        names.slice(0, shown).join(', ') + (names.length > shown ? ', and ' + (names.length - shown) + ' more' : '') + '.';
      note.hidden = false;
    }
  }

  function setUpControls(state, onChange) {
    $('sort').value = state.sort;
    $('min-points').value = String(state.min);
    $('filter').value = state.filter;
    $('phase').checked = state.phase;
    const pointSelect = $('point');
    for (const p of report.progress_points) {
      pointSelect.append(el('option', { value: p.kind + ':' + p.name, textContent: p.name + ' (' + p.kind + ')' }));
    }
    pointSelect.value = state.point;
    const levels = $('levels');
    levels.hidden = levelLabels.length < 2;
    levelLabels.forEach((label, i) => {
      const box = el('input', { type: 'checkbox', checked: state.levels.includes(label), value: label });
      box.addEventListener('change', () => {
        state.levels = levelLabels.filter((l) => levels.querySelector('input[value="' + CSS.escape(l) + '"]').checked);
        onChange();
      });
      const swatch = el('span', { className: 'swatch' });
      swatch.style.background = PALETTE[i % PALETTE.length];
      levels.append(el('label', {}, [box, swatch, 'load ' + label]));
    });
    $('sort').addEventListener('change', (e) => { state.sort = e.target.value; onChange(); });
    $('min-points').addEventListener('change', (e) => {
      const v = parseInt(e.target.value, 10);
      state.min = v >= 2 && v <= 21 ? v : 5;
      onChange();
    });
    let typing = 0;
    $('filter').addEventListener('input', (e) => {
      clearTimeout(typing);
      typing = setTimeout(() => { state.filter = e.target.value; onChange(); }, 200);  // once typing pauses
    });
    $('point').addEventListener('change', (e) => { state.point = e.target.value; onChange(); });
    $('phase').addEventListener('change', (e) => { state.phase = e.target.checked; onChange(); });
    $('source-close').addEventListener('click', () => { $('source').hidden = true; });
  }

  function render(state) {
    charts.reset();
    writeState(state);
    const grid = $('charts');
    grid.textContent = '';
    const lines = selectLines(state);
    const domain = sharedDomain(lines);
    for (const line of lines) {
      grid.append(card(line, domain, state.phase));
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
        'Click a chart for its source; its menu exports SVG or PNG.'
      : '';
    charts.start();
  }

  function main() {
    if (!report || report.schema !== 'coz-amp-report' || report.version !== 1) {
      $('empty').hidden = false;
      $('empty').textContent = 'This page holds no coz-amp report (schema coz-amp-report, version 1). Write one with coz plot PROFILE.';
      document.body.dataset.rendered = 'true';
      return;
    }
    summary();
    const state = readState();
    setUpControls(state, () => render(state));
    render(state);
    // Editing the URL, or going back, shows the view it names.
    window.addEventListener('hashchange', () => {
      if (location.hash.slice(1) === lastHash) {
        return;
      }
      Object.assign(state, readState());
      $('sort').value = state.sort;
      $('min-points').value = String(state.min);
      $('filter').value = state.filter;
      $('point').value = state.point;
      $('phase').checked = state.phase;
      for (const box of $('levels').querySelectorAll('input')) {
        box.checked = state.levels.includes(box.value);
      }
      render(state);
    });
  }

  main();
})();
