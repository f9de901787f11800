// Opening another profile: the file chooser, or files dropped anywhere on the page. The new
// report replaces the page's, whole or not at all; its view starts from the defaults.
import { $ } from './dom.js';
import { profile, isReport, replaceReport } from './profile.js';
import { open as read } from './reader.js';
import { readState } from './state.js';
import { summary } from './summary.js';

export function bindOpening(state, show) {
  const status = $('open-status');
  const open = (files) => {
    const names = Array.from(files, (f) => f.name).join(', ');
    status.textContent = 'opening ' + names + '\u2026';
    status.className = '';
    return read(files).then((next) => {
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
      const before = { profile: Object.assign({}, profile), state: Object.assign({}, state), hash: location.hash };
      try {
        replaceReport(next);
        history.replaceState(null, '', '#');
        Object.assign(state, readState());
        $('source').hidden = true;
        summary();
        show(true);
      } catch (error) {
        Object.assign(profile, before.profile);
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
