// The coz-amp viewer: renders the JSON of `coz report --json` (schema coz-amp-report v1, see
// coz-cli/output/REPORT_JSON.md) as one small Vega-Lite chart per line, with controls whose state
// lives in the URL: one progress point at a time, or all of them overlaid with a legend that
// toggles each. Another profile opens from the page (reader.js). Every string from the profile is untrusted: it reaches the page only through
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

  // What the page shows: the report coz plot embedded, until the user opens another profile.
  let report = readJson('coz-report', null);
  let sources = readJson('coz-sources', {});
  // Files the profile names whose source coz plot did not embed, and why ("hidden path", ...).
  let leftOut = leftOutMap(readJson('coz-sources-left-out', []));

  function leftOutMap(list) {
    return new Map((Array.isArray(list) ? list : [])
      .filter((l) => l && typeof l.file === 'string' && typeof l.reason === 'string')
      .map((l) => [l.file, l.reason]));
  }

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
  const ALL = '*';  // the point control's value for every progress point, overlaid
  let levelLabels = report ? report.load_levels.map((l) => l.label) : [];
  const pointKeys = () => report.progress_points.map((p) => p.kind + ':' + p.name);

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
    const points = pointKeys();
    const point = params.get('point');
    // One `hide` per point: a point's name may hold a comma.
    let hidden = params.getAll('hide').filter((p) => points.includes(p));
    if (hidden.length >= points.length) {
      hidden = [];  // a legend with every point off shows nothing: show them all
    }
    return {
      sort: ['impact', 'slope', 'max', 'name'].includes(params.get('sort')) ? params.get('sort') : 'impact',
      min: min >= 2 && min <= 21 ? min : defaultMin,
      filter: params.get('q') || '',
      point: points.includes(point) || (point === ALL && points.length > 1) ? point : defaultPoint(),
      hidden: hidden,
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
    if (state.point === ALL) {
      state.hidden.forEach((key) => params.append('hide', key));
    }
    params.set('levels', state.levels.join(','));
    params.set('phase', state.phase ? '1' : '0');
    lastHash = params.toString();
    history.replaceState(null, '', '#' + lastHash);
  }
  let lastHash = '';

  // --- the data as the controls ask for it ----------------------------------------------------
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

  // The line as titles show it: the report's shortest unambiguous path suffix ("a/mod.rs:638"),
  // or the base name for a report written before it had one. The full path goes in tooltips.
  function displayName(series) {
    return typeof series.display === 'string' ? series.display : series.line.split('/').pop();
  }

  // A progress point as legends name it: its name, with its kind when a point of another kind
  // has the same name (a throughput and a latency point "x" are two points).
  function pointLabel(kind, name) {
    const clash = report.progress_points.some((p) => p.name === name && p.kind !== kind);
    return clash ? name + ' (' + kind + ')' : name;
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
  function keysOf(state) {
    if (state.point !== ALL) {
      return levelLabels.slice();
    }
    const names = report.progress_points.map((p) => pointLabel(p.kind, p.name));
    return state.levels.length > 1 ? names.flatMap((n) => state.levels.map((l) => n + ' @ ' + l)) : names;
  }

  // Lines to draw: each with its series at the selected points and levels, sorted as asked.
  function selectLines(state) {
    const byLine = new Map();
    const needle = state.filter.toLowerCase();
    const shown = (s) => (state.point === ALL ? !state.hidden.includes(pointKey(s)) : pointKey(s) === state.point);
    for (const s of report.series) {
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
  function lineSpec(line, domain, keys) {
    const colour = { field: 'key', type: 'nominal', scale: { domain: keys, range: PALETTE }, legend: null };
    const points = [];
    const fits = [];
    for (const v of line.views) {
      points.push(...v.points);
      const xmax = Math.max(...v.points.map((p) => p.x));
      fits.push({ x: 0, y: 0, key: v.key }, { x: xmax, y: v.slope * xmax, key: v.key });
    }
    // A few pixels of padding, so points at 0% and 100% are not cut by the clipping.
    const x = { field: 'x', type: 'quantitative', scale: { domain: [0, 1], padding: 6 },
                axis: { format: '.0%', title: 'line speedup', tickCount: 5 } };
    const y = { field: 'y', type: 'quantitative', scale: { domain: domain, zero: false, nice: false, padding: 6 },
                axis: { format: '+.0%', title: 'program speedup', tickCount: 5 } };
    // As wide as its card, axes and labels included, so no chart overflows at any window width.
    return {
      width: 'container',
      height: 150,
      autosize: { type: 'fit-x', contains: 'padding' },
      data: { values: points },
      layer: [
        { data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#999', clip: true },
          encoding: { y: { field: 'zero', type: 'quantitative', scale: y.scale } } },
        { transform: [{ filter: 'datum.low !== null' }], mark: { type: 'rule', strokeWidth: 1.5, clip: true },
          encoding: { x: x, y: { field: 'low', type: 'quantitative', scale: y.scale }, y2: { field: 'high' }, color: colour } },
        { data: { values: fits }, mark: { type: 'line', strokeDash: [4, 3], strokeWidth: 1.2, clip: true },
          encoding: { x: x, y: y, color: colour, detail: { field: 'key' } } },
        { mark: { type: 'point', filled: true, size: 45, clip: true },
          encoding: {
            x: x, y: y, color: colour,
            tooltip: [
              { field: 'line', title: 'line' },
              { field: 'point', title: 'progress point' },
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

  // ast: expressions are interpreted (vega-interpreter, inside vega-embed) instead of compiled
  // with Function(), so the page's policy needs no 'unsafe-eval'.
  const embedOptions = {
    mode: 'vega-lite',
    renderer: 'svg',
    ast: true,
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

  // The smallest impact a flag needs (reports before it had none: their flags needed none).
  const floorText = (report) => +((report.settings.floor || 0) * 100).toPrecision(3) + '%';

  // Where a line's samples came from, when the report lists processes (a run had several): as
  // the text report's `in:` note, the programs that sampled it (a pid, or a count of processes,
  // and each program's share), for a line sampled by more than one program or only by child
  // processes; and each process's part for the tooltip. Null otherwise.
  function origin(series) {
    const parts = (series.processes || []).filter((p) => p.samples + p.blocked_samples > 0);
    const roots = new Set((report.processes || []).filter((p) => p.root).map((p) => p.pid + '\n' + p.program));
    const total = parts.reduce((t, p) => t + p.samples + p.blocked_samples, 0);
    const programs = [];
    for (const p of parts) {
      let g = programs.find((x) => x.program === p.program);
      if (!g) {
        g = { program: p.program, pids: [], samples: 0, root: false };
        programs.push(g);
      }
      g.pids.push(p.pid);
      g.samples += p.samples + p.blocked_samples;
      g.root = g.root || roots.has(p.pid + '\n' + p.program);
    }
    if (programs.length === 0 || (programs.length === 1 && programs[0].root)) {
      return null;
    }
    programs.sort((a, b) => b.samples - a.samples);
    const label = (program, pids) => pids.length === 1 ? (program || 'pid') + ' ' + pids[0]
      : (program || 'unknown') + ' \u00d7' + pids.length;
    const share = (n) => Math.round(n / total * 100) + '%';
    const shown = programs.slice(0, 3).map((g) => label(g.program, g.pids) + (programs.length > 1 ? ' ' + share(g.samples) : ''));
    const more = (n, list) => list.length > n ? ', +' + (list.length - n) + ' more' : '';
    const each = parts.slice(0, 12).map((p) => label(p.program, [p.pid]) + ': ' + share(p.samples + p.blocked_samples) + ' (' +
      p.samples + ' running' + (p.blocked_samples ? ', ' + p.blocked_samples + ' blocked' : '') + ')');
    return { text: 'in: ' + shown.join(', ') + more(3, programs),
             tip: 'samples by process: ' + each.join('; ') + more(12, parts) };
  }

  function card(line, domain, keys, phaseOn) {
    const title = el('h3', { textContent: line.display, title: line.line });
    // One badge per finding, naming the load levels it holds at when there are several.
    const badge = (cls, text, tip, holds) => {
      const levels = line.views.filter((v) => holds(v.series)).map((v) => v.key);
      if (levels.length) {
        const suffix = line.views.length > 1 ? ' ' + levels.join(', ') : '';
        title.append(el('span', { className: 'badge ' + cls, textContent: text + suffix, title: tip }));
      }
    };
    badge('contention', 'contention', 'speeding this line up slows the program (significant downward slope)', (s) => s.contention);
    badge('significant', 'significant', 'the line\'s speedup changes the program\'s (permutation test, 5% false discovery rate, ' +
          'impact interval clear of zero and the impact at least the floor in the legend)',
          (s) => s.significant && !s.contention);
    const phased = phaseOn && line.views.find((v) => v.series.phase_corrected && v.series.phase_factor < 0.95);
    if (phased) {
      title.append(el('span', { className: 'badge phase', textContent: 'phase \u00d7' + phased.series.phase_factor.toFixed(2),
                                title: 'active during this share of the run; speedups scaled by it (eq. 5.8)' }));
    }
    // Blocked samples are the line's (every series of it has the same), not a load level's.
    const waits = line.views.find((v) => v.series.off_cpu);
    if (waits) {
      title.append(el('span', { className: 'badge off-cpu', textContent: 'off-cpu',
                                title: Math.round(waits.series.blocked_share * 100) + '% of its samples blocked: ' +
                                       'the line mostly waits in blocking calls (I/O, sleep, child processes); less ' +
                                       'waiting (batching, caching, asynchronous I/O) helps, not faster code' }));
    }
    // Like blocked samples, a line's processes are the same in every series of it.
    const from = line.views.length ? origin(line.views[0].series) : null;
    if (from) {
      title.append(el('span', { className: 'badge processes', textContent: from.text, title: from.tip }));
    }
    const stats = el('p', { className: 'stats' });
    stats.textContent = line.views.map((v) => {
      const ci = v.impactLow === null ? '' : ' [' + percent(v.impactLow) + ', ' + percent(v.impactHigh) + ']';
      return (line.views.length > 1 ? v.key + ': ' : '') + 'impact ' + percent(v.impact) + ci +
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
    charts.lazy(chart, lineSpec(line, domain, keys));
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
    parts.push(s.runs + (s.runs === 1 ? ' run' : ' runs'));
    if (report.processes && report.processes.length > 1) {
      parts.push(report.processes.length + ' processes');  // present when a run had several
    }
    parts.push(seconds(s.runtime_ns), s.experiments + ' experiments',
               s.lines_tested + ' lines tested');
    $('summary-text').textContent = parts.join(' \u00b7 ');
    const warnings = $('warnings');
    warnings.textContent = '';
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
    const note = $('source-note');
    note.hidden = leftOut.size === 0;
    if (leftOut.size) {
      const shown = 10;
      const names = Array.from(leftOut, ([file, reason]) => file + ' (' + reason + ')');
      note.textContent = 'Source not shown for ' + names.length + (names.length === 1 ? ' file: ' : ' files: ') +
        names.slice(0, shown).join(', ') + (names.length > shown ? ', and ' + (names.length - shown) + ' more' : '') + '.';
    }
  }

  // A row of checkboxes with colour swatches (the load levels, the overlaid points' legend).
  function toggles(container, entries, onToggle) {
    container.textContent = '';
    entries.forEach((entry, i) => {
      const box = el('input', { type: 'checkbox', checked: entry.checked, value: entry.value });
      box.addEventListener('change', () => onToggle(entry.value, box.checked, box));
      const swatch = el('span', { className: 'swatch' });
      swatch.style.background = PALETTE[i % PALETTE.length];
      container.append(el('label', { title: entry.title || '' }, [box, swatch, entry.label]));
    });
  }

  // The controls that depend on the report: the point menu, the load levels, the legend.
  function fillControls(state, onChange) {
    $('sort').value = state.sort;
    $('min-points').value = String(state.min);
    $('filter').value = state.filter;
    $('phase').checked = state.phase;
    const pointSelect = $('point');
    pointSelect.textContent = '';
    for (const p of report.progress_points) {
      pointSelect.append(el('option', { value: p.kind + ':' + p.name, textContent: p.name + ' (' + p.kind + ')' }));
    }
    if (report.progress_points.length > 1) {
      pointSelect.append(el('option', { value: ALL, textContent: 'all, overlaid' }));
    }
    pointSelect.value = state.point;
    const levels = $('levels');
    levels.hidden = levelLabels.length < 2;
    toggles(levels, levelLabels.map((l) => ({ value: l, label: 'load ' + l, checked: state.levels.includes(l) })),
      (value, checked, box) => {
        const next = levelLabels.filter((l) => (l === value ? checked : state.levels.includes(l)));
        if (next.length === 0) {
          box.checked = true;  // one level at least
          return;
        }
        state.levels = next;
        onChange();
      });
    // The legend of overlaid points: each entry shows or hides its point in every chart.
    const legend = $('legend');
    legend.hidden = state.point !== ALL;
    if (state.point === ALL) {
      const keys = keysOf(state);
      toggles(legend, report.progress_points.map((p) => {
        const key = p.kind + ':' + p.name;
        return { value: key, label: pointLabel(p.kind, p.name), title: p.kind + ' point ' + p.name,
                 checked: !state.hidden.includes(key) };
      }), (value, checked, box) => {
        const hidden = checked ? state.hidden.filter((k) => k !== value) : state.hidden.concat([value]);
        if (hidden.length >= report.progress_points.length) {
          box.checked = true;  // one point at least
          return;
        }
        state.hidden = hidden;
        onChange();
      });
      // With several levels a point has several colours; its swatch shows the first.
      legend.querySelectorAll('.swatch').forEach((swatch, i) => {
        const p = report.progress_points[i];
        const name = pointLabel(p.kind, p.name);
        const at = keys.findIndex((k) => k === name || k.startsWith(name + ' @ '));
        swatch.style.background = PALETTE[Math.max(0, at) % PALETTE.length];
      });
    }
  }

  // The controls' listeners, set once; they change `state` and call onChange.
  function bindControls(state, onChange) {
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
    $('point').addEventListener('change', (e) => { state.point = e.target.value; onChange(true); });
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

  const isReport = (r) => r && r.schema === 'coz-amp-report' && r.version === 1;

  // Opening another profile: the file chooser, or files dropped anywhere on the page. The new
  // report replaces the page's; its view starts from the defaults.
  function bindOpening(state, show) {
    const status = $('open-status');
    const open = (files) => {
      const names = Array.from(files, (f) => f.name).join(', ');
      status.textContent = 'opening ' + names + '\u2026';
      status.className = '';
      return window.cozReader.open(files).then((next) => {
        if (!isReport(next)) {
          throw new Error('not a coz-amp report (schema coz-amp-report, version 1)');
        }
        // Not one record read: not a profile at all (coz report would say the same, line by line).
        if (next.inputs.length && next.inputs.every((input) => input.records === 0)) {
          const first = next.inputs.find((input) => input.errors.length);
          throw new Error('no profile record in it' +
                          (first ? ' (line ' + first.errors[0].line + ': ' + first.errors[0].message + ')' : ''));
        }
        // Shown whole or not at all: a report that fails to draw leaves the previous one.
        const before = { report, sources, leftOut, levelLabels, state: Object.assign({}, state), hash: location.hash };
        try {
          report = next;
          sources = {};
          leftOut = new Map();
          levelLabels = report.load_levels.map((l) => l.label);
          history.replaceState(null, '', '#');
          Object.assign(state, readState());
          $('source').hidden = true;
          summary();
          show(true);
        } catch (error) {
          ({ report, sources, leftOut, levelLabels } = before);
          Object.assign(state, before.state);
          history.replaceState(null, '', before.hash);
          summary();
          show(true);
          throw new Error('cannot show it: ' + error.message);
        }
        status.textContent = 'showing ' + names;
        document.title = 'coz causal profile: ' + names;
      }).catch((error) => {
        status.textContent = names + ': ' + error.message;
        status.className = 'error';
      });
    };
    $('open-file').addEventListener('change', (e) => {
      if (e.target.files.length) {
        open(e.target.files).finally(() => { e.target.value = ''; });
      }
    });
    document.addEventListener('dragover', (e) => {
      if (e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files')) {
        e.preventDefault();
        document.body.classList.add('dropping');
      }
    });
    document.addEventListener('dragleave', (e) => {
      if (!e.relatedTarget) {
        document.body.classList.remove('dropping');
      }
    });
    document.addEventListener('drop', (e) => {
      document.body.classList.remove('dropping');
      if (e.dataTransfer && e.dataTransfer.files.length) {
        e.preventDefault();
        open(e.dataTransfer.files);
      }
    });
  }

  function main() {
    if (!isReport(report)) {
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

  main();
})();
