// Numbers as the page writes them: percentages, durations, the report's impact floor.
export function percent(v, digits) {
  if (v === null || v === undefined || !isFinite(v)) {
    return '-';
  }
  return (v >= 0 ? '+' : '') + (v * 100).toFixed(digits === undefined ? 1 : digits) + '%';
}

export function seconds(ns) {
  return ns >= 1e9 ? (ns / 1e9).toFixed(1) + ' s' : (ns / 1e6).toFixed(0) + ' ms';
}

// The smallest impact a flag needs (reports before it had none: their flags needed none).
export const floorText = (report) => +((report.settings.floor || 0) * 100).toPrecision(3) + '%';
