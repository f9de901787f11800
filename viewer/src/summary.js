// The page's header: what was profiled, the report's warnings, and the files whose source the
// page leaves out.
import { $, el } from './dom.js';
import { seconds } from './format.js';
import { profile } from './profile.js';

export function summary() {
  const report = profile.report;
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
  const leftOut = profile.leftOut;
  const note = $('source-note');
  note.hidden = leftOut.size === 0;
  if (leftOut.size) {
    const shown = 10;
    const names = Array.from(leftOut, ([file, reason]) => file + ' (' + reason + ')');
    note.textContent = 'Source not shown for ' + names.length + (names.length === 1 ? ' file: ' : ' files: ') +
      names.slice(0, shown).join(', ') + (names.length > shown ? ', and ' + (names.length - shown) + ' more' : '') + '.';
  }
}
