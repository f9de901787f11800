// Drawing charts with vega-embed (a global: the page loads the Vega libraries before this
// script): the colours, the Vega-Lite spec of a line's chart, and drawing as cards near the
// viewport, with body[data-rendered] telling when every chart started so far has drawn.

// Okabe-Ito: distinguishable with the common colour-vision deficiencies.
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

export function lineSpec(line, domain, keys) {
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
export const embedOptions = {
  mode: 'vega-lite',
  renderer: 'svg',
  ast: true,
  actions: { export: true, source: false, compiled: false, editor: false },
};

// Draws charts as they come near the viewport, so a profile of hundreds of lines opens at once.
// body[data-rendered] turns "true" when every chart started so far has drawn.
export const charts = {
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
