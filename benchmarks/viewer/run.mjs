// How fast `coz plot` writes a page and the page shows its first screen, for a profile of many
// lines. Usage: node benchmarks/viewer/run.mjs [lines] [runs]  (defaults 300 and 5). Needs the
// build (build/bin/coz), viewer/node_modules (npm ci) and /usr/bin/chromium.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const lines = Number(process.argv[2] || 300);
const runs = Number(process.argv[3] || 5);
const { chromium } = createRequire(path.join(root, 'viewer/package.json'))('playwright-core');
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// A profile of `lines` lines, 40 experiments each, speedups drawn as the profiler draws them.
let seed = 1;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const out = ['startup\ttime=1\tprogram=./bench'];
for (let i = 0; i < lines; i++) {
  const slope = [0, 0, 0.2, 0.5][i % 4];
  for (let k = 0; k < 40; k++) {
    const x = random() < 0.5 ? 0 : Math.ceil(random() * 20) * 0.05;
    const period = 1e6 * (1 - slope * x) * (1 + 0.05 * (random() - 0.5));
    out.push(`experiment\tselected=/bench/f${Math.floor(i / 10)}.c:${i}\tspeedup=${x.toFixed(2)}\tduration=50000000\tselected-samples=50`);
    out.push(`throughput-point\tname=done\tdelta=${Math.round(5e7 / period)}`);
  }
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coz-viewer-bench-'));
const profile = path.join(dir, 'big.coz');
fs.writeFileSync(profile, out.join('\n') + '\n');
const page = path.join(dir, 'big.html');

const plotTimes = [];
for (let r = 0; r < runs; r++) {
  const start = process.hrtime.bigint();
  execFileSync(path.join(root, 'build/bin/coz'), ['plot', '-o', page, profile]);
  plotTimes.push(Number(process.hrtime.bigint() - start) / 1e6);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const viewTimes = [];
let drawn = 0;
for (let r = 0; r < runs; r++) {
  const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const start = Date.now();
  await tab.goto('file://' + page);
  await tab.waitForSelector('body[data-rendered="true"]', { timeout: 120000 });
  viewTimes.push(Date.now() - start);
  drawn = await tab.locator('svg.marks').count();
  await tab.close();
}
await browser.close();
fs.rmSync(dir, { recursive: true, force: true });

console.log(`profile: ${lines} lines x 40 experiments; ${runs} runs each, medians`);
console.log(`  coz plot (analysis, 1000 bootstrap replicates, page written)  ${median(plotTimes).toFixed(0)} ms`);
console.log(`  page opened to first screen drawn (${drawn} of ${lines} charts)  ${median(viewTimes).toFixed(0)} ms`);
