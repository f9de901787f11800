// The profile the page shows (the report `coz plot` embedded, until the user opens another), its
// source snippets, and the names the report gives its lines and progress points.
import { $ } from './dom.js';

export function readJson(id, fallback) {
  const el = $(id);
  if (!el || !el.textContent.trim()) {
    return fallback;
  }
  return JSON.parse(el.textContent);
}

function leftOutMap(list) {
  return new Map((Array.isArray(list) ? list : [])
    .filter((l) => l && typeof l.file === 'string' && typeof l.reason === 'string')
    .map((l) => [l.file, l.reason]));
}

// leftOut: files the profile names whose source coz plot did not embed, and why ("hidden path",
// ...). levelLabels: the report's load levels, in its order.
export const profile = {
  report: readJson('coz-report', null),
  sources: readJson('coz-sources', {}),
  leftOut: leftOutMap(readJson('coz-sources-left-out', [])),
  levelLabels: [],
};
profile.levelLabels = profile.report ? profile.report.load_levels.map((l) => l.label) : [];

export const isReport = (r) => r && r.schema === 'coz-amp-report' && r.version === 1;

// A report opened on the page replaces the embedded one; its sources are not in the page.
export function replaceReport(report) {
  profile.report = report;
  profile.sources = {};
  profile.leftOut = new Map();
  profile.levelLabels = report.load_levels.map((l) => l.label);
}

export const pointKey = (s) => s.kind + ':' + s.point;
export const pointKeys = () => profile.report.progress_points.map((p) => p.kind + ':' + p.name);

// The line as titles show it: the report's shortest unambiguous path suffix ("a/mod.rs:638"),
// or the base name for a report written before it had one. The full path goes in tooltips.
export function displayName(series) {
  return typeof series.display === 'string' ? series.display : series.line.split('/').pop();
}

// A progress point as legends name it: its name, with its kind when a point of another kind
// has the same name (a throughput and a latency point "x" are two points).
export function pointLabel(kind, name) {
  const clash = profile.report.progress_points.some((p) => p.name === name && p.kind !== kind);
  return clash ? name + ' (' + kind + ')' : name;
}
