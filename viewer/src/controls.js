// The control bar: the menus and toggles that depend on the report (filled again when it or the
// point changes), and the listeners, set once, that change the state and ask for a new view.
import { PALETTE } from './charts.js';
import { $, el } from './dom.js';
import { profile, pointLabel } from './profile.js';
import { keysOf } from './select.js';
import { ALL } from './state.js';

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
export function fillControls(state, onChange) {
  const report = profile.report;
  const levelLabels = profile.levelLabels;
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
export function bindControls(state, onChange) {
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
