// The view the controls choose (sort, min points, filter, progress point, hidden points, load
// levels, phase correction), kept in the URL's hash so a view can be shared or reloaded.
import { profile, pointKey, pointKeys, readJson } from './profile.js';

export const ALL = '*';  // the point control's value for every progress point, overlaid

// The point with the most series (the first point when none has any).
function defaultPoint() {
  const report = profile.report;
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
export function readState() {
  const levelLabels = profile.levelLabels;
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

// The hash writeState last wrote: a hashchange to it is the page's own.
export let lastHash = '';

export function writeState(state) {
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
