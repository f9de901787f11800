// A line's card: its title with the badges of its findings, its statistics and its chart; and
// the source panel a click on a card opens.
import { charts, lineSpec } from './charts.js';
import { $, el } from './dom.js';
import { percent } from './format.js';
import { profile } from './profile.js';

// Where a line's samples came from, when the report lists processes (a run had several): as
// the text report's `in:` note, the programs that sampled it (a pid, or a count of processes,
// and each program's share), for a line sampled by more than one program or only by child
// processes; and each process's part for the tooltip. Null otherwise.
function origin(series) {
  const parts = (series.processes || []).filter((p) => p.samples + p.blocked_samples > 0);
  const roots = new Set((profile.report.processes || []).filter((p) => p.root).map((p) => p.pid + '\n' + p.program));
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

export function card(line, domain, keys, phaseOn) {
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
  const sources = profile.sources;
  const lines = Object.hasOwn(sources, line.file) ? sources[line.file] : null;
  if (!lines && profile.leftOut.has(line.file)) {
    pre.textContent = 'Source not shown: ' + profile.leftOut.get(line.file) + '.';
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
