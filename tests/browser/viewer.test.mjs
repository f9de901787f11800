// The viewer in headless Chromium (Debian's package), driven by Playwright (playwright-core from
// viewer/node_modules): pages written by `coz plot` from golden profiles, opened from file://.
// Environment: COZ_CLI (the coz binary), COZ_GOLDEN (tests/golden), COZ_ARTIFACTS (where the
// screenshots go), COZ_VIEWER_PACKAGE (viewer/package.json, to find playwright-core),
// COZ_FIXTURES and COZ_PROGRAMS_SRC (the test programs, built and as source, for coz compare's
// page).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const env = (name) => {
  const value = process.env[name];
  assert.ok(value, `${name} must be set (ctest sets it)`);
  return value;
};
const cli = env('COZ_CLI');
const golden = env('COZ_GOLDEN');
const artifacts = env('COZ_ARTIFACTS');
const { chromium } = createRequire(env('COZ_VIEWER_PACKAGE'))('playwright-core');
const chromiumPath = process.env.COZ_CHROMIUM || '/usr/bin/chromium';
assert.ok(fs.existsSync(chromiumPath), `${chromiumPath} is missing: scripts/deps.sh installs Debian's chromium`);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coz-viewer-'));
fs.mkdirSync(artifacts, { recursive: true });
let browser;

before(async () => {
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

// Writes the page for a golden profile and returns its path.
function plot(profile, ...options) {
  const out = path.join(scratch, path.basename(profile, '.coz') + '.html');
  const r = spawnSync(cli, ['plot', '-o', out, ...options, path.join(golden, profile)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), out);
  return out;
}

function reportJson(profile, ...options) {
  return JSON.parse(execFileSync(cli, ['report', '--json', ...options, path.join(golden, profile)], { encoding: 'utf8' }));
}

// Opens a page and records console errors, page errors and every request that is not local.
async function open(file, hash = '') {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = [];
  const requests = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('request', (r) => {
    if (!/^(file|data|blob):/.test(r.url())) {
      requests.push(r.url());
    }
  });
  await page.goto('file://' + file + hash);
  await page.waitForSelector('body[data-rendered="true"]', { timeout: 30000 });
  return { page, problems, requests };
}

async function cardLines(page) {
  return page.locator('.chart-card').evaluateAll((cards) => cards.map((c) => c.dataset.line));
}

async function setAndWait(page, action) {
  await page.evaluate(() => { document.body.dataset.rendered = 'pending'; });
  await action();
  await page.waitForSelector('body[data-rendered="true"]', { timeout: 30000 });
}

test('one chart per line of the report, offline, without console errors', async () => {
  const file = plot('throughput.coz', '--no-source');
  const json = reportJson('throughput.coz', '--min-points', '2');
  const lines = new Set(json.series.map((s) => s.line));
  const { page, problems, requests } = await open(file, '#min=2');
  assert.equal((await cardLines(page)).length, lines.size);
  assert.equal(await page.locator('.chart-card svg.marks').count(), lines.size, 'every chart drew');
  // Each chart's menu exports it.
  const menu = page.locator('.chart-card').first().locator('.vega-actions a');
  assert.deepEqual(await menu.evaluateAll((links) => links.map((a) => a.textContent)), ['Save as SVG', 'Save as PNG']);
  assert.deepEqual(problems, []);
  assert.deepEqual(requests, [], 'the page must not touch the network');
  await page.screenshot({ path: path.join(artifacts, 'viewer-throughput.png'), fullPage: true });
  await page.close();
});

test('sorting by impact and by name, the filter and minimum points', async () => {
  const { page, problems } = await open(plot('load_lines.coz'), '#levels=1x');
  assert.deepEqual(await cardLines(page), ['/src/z.c:5', '/src/a.c:10'], 'impact: z.c matters more');
  await setAndWait(page, () => page.selectOption('#sort', 'name'));
  assert.deepEqual(await cardLines(page), ['/src/a.c:10', '/src/z.c:5']);
  assert.match(page.url(), /sort=name/, 'the view state is in the URL');

  await setAndWait(page, () => page.fill('#filter', 'z.c'));
  assert.deepEqual(await cardLines(page), ['/src/z.c:5']);
  await setAndWait(page, () => page.fill('#filter', ''));

  // a.c:10 was measured at six speedups, z.c:5 at five.
  await setAndWait(page, async () => { await page.fill('#min-points', '6'); await page.dispatchEvent('#min-points', 'change'); });
  assert.deepEqual(await cardLines(page), ['/src/a.c:10']);

  // Reloading the URL brings the same view back.
  const again = await open(plot('load_lines.coz'), new URL(page.url()).hash);
  assert.deepEqual(await cardLines(again.page), ['/src/a.c:10']);
  assert.equal(await again.page.inputValue('#sort'), 'name');
  assert.deepEqual(problems, []);
  await again.page.close();
  await page.close();
});

test('a URL naming no known point, level or sort falls back to the defaults', async () => {
  const { page, problems } = await open(plot('load_lines.coz'), '#point=bogus&levels=&sort=fastest&min=99');
  assert.equal((await cardLines(page)).length, 2);
  assert.equal(await page.inputValue('#point'), 'throughput:done');
  assert.equal(await page.inputValue('#sort'), 'impact');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the load toggle shows one series per level', async () => {
  const { page, problems } = await open(plot('load_lines.coz'));
  const colours = () => page.locator('.chart-card').first().locator('g.mark-symbol path')
    .evaluateAll((marks) => Array.from(new Set(marks.map((m) => m.getAttribute('fill')))));
  assert.equal((await colours()).length, 2, 'two levels, two colours');
  assert.equal(await page.locator('#scalability').isVisible(), true, 'a load sweep shows its scalability chart');
  await page.screenshot({ path: path.join(artifacts, 'viewer-loads.png'), fullPage: true });
  await setAndWait(page, () => page.uncheck('#levels input[value="2x"]'));
  assert.equal((await colours()).length, 1);
  assert.equal(await page.locator('#scalability').isVisible(), false, 'one level is no curve');
  assert.deepEqual(problems, []);
  await page.close();
});

// Hovers the first point of a card's chart and returns the tooltip's text.
async function pointTooltip(page, card) {
  await card.locator('g.mark-symbol path').first().hover();
  const tip = page.locator('#vg-tooltip-element');
  await tip.waitFor({ state: 'visible', timeout: 10000 });
  return tip.textContent();
}

test('files with the same base name get distinct titles, the full path in tooltips', async () => {
  const { page, problems } = await open(plot('mod_rs.coz', '--no-source'));
  const titles = await page.locator('.chart-card').evaluateAll((cards) => cards.map((c) => {
    const h3 = c.querySelector('h3');
    return [h3.firstChild.textContent, h3.title, c.dataset.line];
  }));
  assert.deepEqual(titles.sort(), [
    ['main.rs:17', '/home/u/proj/src/main.rs:17', '/home/u/proj/src/main.rs:17'],
    ['net/mod.rs:42', '/home/u/proj/src/net/mod.rs:42', '/home/u/proj/src/net/mod.rs:42'],
    ['ptr/mod.rs:638', '/rustc/90b35a623/library/core/src/ptr/mod.rs:638', '/rustc/90b35a623/library/core/src/ptr/mod.rs:638'],
  ]);
  const net = page.locator('.chart-card', { has: page.locator('h3[title="/home/u/proj/src/net/mod.rs:42"]') });
  assert.match(await pointTooltip(page, net), /\/home\/u\/proj\/src\/net\/mod\.rs:42/);
  await page.screenshot({ path: path.join(artifacts, 'viewer-mod-rs.png'), fullPage: true });

  // The filter matches the shown name and the full path alike.
  await setAndWait(page, () => page.fill('#filter', 'ptr/mod.rs:638'));
  assert.deepEqual(await cardLines(page), ['/rustc/90b35a623/library/core/src/ptr/mod.rs:638']);
  await setAndWait(page, () => page.fill('#filter', '/home/u/proj/'));
  assert.deepEqual((await cardLines(page)).sort(), ['/home/u/proj/src/main.rs:17', '/home/u/proj/src/net/mod.rs:42']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a line that mostly waits gets an off-cpu badge with its blocked share and the remedy', async () => {
  const badges = (page) => page.locator('.chart-card').evaluateAll((cards) => cards.map((c) => {
    const b = c.querySelector('h3 .badge.off-cpu');
    return [c.dataset.line, b ? b.textContent : null, b ? b.title : null];
  }).sort());
  const expected = (tips) => [['/src/cpu.c:3', null, null], ['/src/sleep.c:7', 'off-cpu', tips[0]],
                              ['/src/wait.c:12', 'off-cpu', tips[1]]];
  const tip = (share) => share + ' of its samples blocked: the line mostly waits in blocking calls (I/O, sleep, ' +
    'child processes); less waiting (batching, caching, asynchronous I/O) helps, not faster code';
  const { page, problems } = await open(plot('off_cpu.coz', '--no-source'));
  assert.deepEqual(await badges(page), expected([tip('100%'), tip('90%')]));
  assert.equal(await page.locator('.chart-card[data-line="/src/sleep.c:7"] .badge.off-cpu').isVisible(), true);
  await page.screenshot({ path: path.join(artifacts, 'viewer-off-cpu.png'), fullPage: true });
  // The page's own reader finds the same: a profile without blocked samples shows no badge.
  await setAndWait(page, () => page.setInputFiles('#open-file', path.join(golden, 'throughput.coz')));
  assert.equal(await page.locator('.badge.off-cpu').count(), 0);
  await setAndWait(page, () => page.setInputFiles('#open-file', path.join(golden, 'off_cpu.coz')));
  assert.deepEqual(await badges(page), expected([tip('100%'), tip('90%')]));
  assert.deepEqual(problems, []);
  await page.close();
});

test('a line sampled in child processes names them, with each process\'s part in its tooltip', async () => {
  const badges = (page) => page.locator('.chart-card').evaluateAll((cards) => cards.map((c) => {
    const b = c.querySelector('h3 .badge.processes');
    return [c.dataset.line, b ? b.textContent : null, b ? b.title : null];
  }).sort());
  const expected = [
    ['/src/parse.c:30', 'in: server 1201 75%, worker 1202 25%',
     'samples by process: server 1201: 75% (7500 running); worker 1202: 25% (2500 running)'],
    ['/src/serve.c:10', 'in: server \u00d72 95%, pid 1299 5%',
     'samples by process: server 1200: 40% (4000 running); server 1201: 55% (5000 running, 500 blocked); ' +
     'pid 1299: 5% (500 running)'],
    ['/src/work.c:20', 'in: worker 1202', 'samples by process: worker 1202: 100% (10000 running)'],
  ];
  const { page, problems } = await open(plot('processes.coz', '--no-source'));
  assert.deepEqual(await badges(page), expected);
  await page.screenshot({ path: path.join(artifacts, 'viewer-processes.png'), fullPage: true });
  // The page's own reader finds the same; a profile of one process shows none.
  await setAndWait(page, () => page.setInputFiles('#open-file', path.join(golden, 'off_cpu.coz')));
  assert.equal(await page.locator('.badge.processes').count(), 0);
  await setAndWait(page, () => page.setInputFiles('#open-file', path.join(golden, 'processes.coz')));
  assert.deepEqual(await badges(page), expected);
  assert.deepEqual(problems, []);
  await page.close();
});

test('markup in profile strings renders as text and runs no script', async () => {
  const { page, problems } = await open(plot('hostile.coz'));
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.equal(await page.locator('#charts img, #warnings img, #summary img').count(), 0);
  assert.match(await page.locator('.chart-card h3').first().textContent(), /<img src=x onerror=window.__xss=1>\.c:3/);
  assert.match(await page.locator('#warnings').textContent(), /<img src=y onerror=window.__xss=3>/);
  assert.match(await page.locator('#point').textContent(), /<script>window.__xss=2<\/script>/);
  assert.match(await pointTooltip(page, page.locator('.chart-card').first()), /<img src=x onerror=window.__xss=1>\.c:3/);
  await page.locator('.chart-card').first().click({ position: { x: 20, y: 10 } });
  assert.equal(await page.locator('#source').isVisible(), true);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an empty profile explains what to do, in coz report\'s words', async () => {
  const profile = path.join(scratch, 'empty.coz');
  fs.writeFileSync(profile, 'startup\ttime=1\nruntime\ttime=200000000\nsamples\tlocation=/a.c:1\tcount=2\n');
  const out = path.join(scratch, 'empty.html');
  const r = spawnSync(cli, ['plot', '-o', out, profile], { encoding: 'utf8' });
  assert.equal(r.status, 1, 'nothing to show');
  const { page, problems } = await open(out);
  assert.match(await page.locator('#empty').textContent(), /Nothing to show: no experiment finished: the program ran 200 ms/);
  assert.equal(await page.locator('.chart-card').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('files whose source is left out are named in a note, as text', async () => {
  const root = fs.mkdtempSync(path.join(scratch, 'src-'));
  fs.mkdirSync(path.join(root, '.ssh'));
  fs.writeFileSync(path.join(root, '.ssh', 'id_rsa'), 'KEY-LINE-1\nKEY-LINE-2\n');
  fs.writeFileSync(path.join(root, '<img src=x onerror=window.__xss=9>.bin'), 'one\ntwo\n');
  let text = 'startup\ttime=1\n';
  for (const file of ['.ssh/id_rsa', '<img src=x onerror=window.__xss=9>.bin']) {
    for (const x of [0, 0.25, 0.5, 0.75, 1]) {
      text += `experiment\tselected=${path.join(root, file)}:2\tspeedup=${x}\tduration=1000000000\tselected-samples=1000\n` +
              `throughput-point\tname=p\tdelta=${Math.round(1000 / (1 - 0.5 * x))}\n`;
    }
  }
  const profile = path.join(root, 'left-out.coz');
  fs.writeFileSync(profile, text);
  const out = path.join(scratch, 'left-out.html');
  const r = spawnSync(cli, ['plot', '--source-root', root, '-o', out, profile], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /source not shown for 2 files: .*id_rsa \(hidden path\), .*<img src=x onerror=window.__xss=9>\.bin \(not a source file\)/);
  assert.equal(fs.readFileSync(out, 'utf8').includes('KEY-LINE'), false);
  const { page, problems } = await open(out);
  const note = page.locator('#source-note');
  assert.equal(await note.isVisible(), true);
  assert.match(await note.textContent(), /^Source not shown for 2 files: .*id_rsa \(hidden path\), .*<img src=x onerror=window.__xss=9>\.bin \(not a source file\)\.$/);
  assert.equal(await page.locator('#summary img').count(), 0, 'file names are text, not markup');
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  await page.locator('.chart-card', { hasText: 'id_rsa' }).click({ position: { x: 20, y: 10 } });
  assert.equal(await page.locator('#source-text').textContent(), 'Source not shown: hidden path.');
  assert.deepEqual(problems, []);
  await page.close();
});

// A profile with `lines` lines (long paths, in two directories) measured at six speedups each,
// and two progress points, written under the scratch directory.
function syntheticProfile(name, lines) {
  let text = 'startup\ttime=1\n';
  for (let i = 0; i < lines; i++) {
    const file = `/home/user/projects/a-rather-long-project-name/src/${i % 2 ? 'net' : 'storage'}/module_${i}.c:${10 + i}`;
    for (const x of [0, 0.2, 0.4, 0.6, 0.8, 1]) {
      text += `experiment\tselected=${file}\tspeedup=${x}\tduration=1000000000\tselected-samples=1000\n` +
              `throughput-point\tname=done\tdelta=${Math.round(1000 / (1 - (i + 1) / (lines + 2) * x))}\n` +
              `throughput-point\tname=flushed\tdelta=${Math.round(500 / (1 - 0.1 * x))}\n`;
    }
  }
  const profile = path.join(scratch, name);
  fs.writeFileSync(profile, text);
  return profile;
}

function plotFile(profile) {
  const out = profile.replace(/\.coz$/, '.html');
  const r = spawnSync(cli, ['plot', '--no-source', '-o', out, profile], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return out;
}

// Every chart, its export menu and its axis labels inside its card, and the page no wider than
// the window: the boxes as the browser laid them out.
async function overflows(page) {
  return page.evaluate(() => {
    const problems = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width) {
      problems.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    }
    const inside = (inner, outer) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 &&
                                     inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
    document.querySelectorAll('.chart-card').forEach((card, i) => {
      const box = card.getBoundingClientRect();
      if (box.right > width + 0.5) {
        problems.push(`card ${i} ends at ${box.right}, past the window (${width})`);
      }
      for (const part of card.querySelectorAll('svg.marks, .vega-actions, details > summary, svg text')) {
        const r = part.getBoundingClientRect();
        if (r.width > 0 && !inside(r, box)) {
          problems.push(`card ${i}: ${part.tagName} "${part.textContent.slice(0, 20)}" [${r.left},${r.right}] outside [${box.left},${box.right}]`);
        }
      }
    });
    return problems;
  });
}

test('the layout fits the window at 800, 1400 and 1920 px: no chart outside its card', async () => {
  const file = plotFile(syntheticProfile('layout.coz', 9));
  for (const width of [800, 1400, 1920]) {
    const page = await browser.newPage({ viewport: { width: width, height: 1000 } });
    const problems = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    await page.goto('file://' + file + '#min=2');
    await page.waitForSelector('body[data-rendered="true"]', { timeout: 30000 });
    // Draw every chart (they draw as they come near the viewport), then measure.
    for (const card of await page.locator('.chart-card').all()) {
      await card.scrollIntoViewIfNeeded();
    }
    await page.waitForFunction(() => document.querySelectorAll('.chart-card svg.marks').length ===
                                     document.querySelectorAll('.chart-card').length, null, { timeout: 30000 });
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.equal(await page.locator('.chart-card').count(), 9);
    const ticks = await page.locator('.chart-card').first().locator('svg text').allTextContents();
    assert.ok(ticks.includes('100%'), `the 100% tick is drawn at ${width} px: ${ticks}`);
    assert.deepEqual(await overflows(page), [], `at ${width} px`);
    assert.deepEqual(problems, []);
    await page.screenshot({ path: path.join(artifacts, `viewer-layout-${width}.png`), fullPage: true });
    await page.close();
  }
});

test('the page policy allows no eval: charts draw with interpreted expressions', async () => {
  const { page, problems } = await open(plot('throughput.coz', '--no-source'));
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  assert.doesNotMatch(policy, /'unsafe-eval'/);
  assert.match(policy, /script-src 'nonce-[0-9a-f]+' 'wasm-unsafe-eval';/);
  assert.ok(await page.locator('.chart-card svg.marks').count() > 0);
  assert.deepEqual(problems, [], 'no policy violation, no error');
  await page.close();
});

test('all progress points overlaid, with a legend that toggles each', async () => {
  const file = plotFile(syntheticProfile('overlay.coz', 3));
  const { page, problems } = await open(file);
  const colours = () => page.locator('.chart-card').first().locator('g.mark-symbol path')
    .evaluateAll((marks) => Array.from(new Set(marks.map((m) => m.getAttribute('fill')))));
  assert.equal((await colours()).length, 1, 'one point at a time by default');
  assert.equal(await page.locator('#legend').isVisible(), false);
  await setAndWait(page, () => page.selectOption('#point', '*'));
  assert.equal((await colours()).length, 2, 'both points in each chart');
  assert.deepEqual(await page.locator('#legend label').allTextContents(), ['done', 'flushed']);
  assert.match(await page.locator('.chart-card .stats').first().textContent(), /^done: impact .*; flushed: impact /);
  await setAndWait(page, () => page.uncheck('#legend input[value="throughput:flushed"]'));
  assert.equal((await colours()).length, 1);
  assert.match(page.url(), /point=\*.*hide=throughput%3Aflushed|point=%2A.*hide=throughput%3Aflushed/);
  // The last point shown cannot be turned off.
  await page.uncheck('#legend input[value="throughput:done"]').catch(() => {});
  assert.equal(await page.isChecked('#legend input[value="throughput:done"]'), true);
  // The URL brings the overlay back.
  const again = await open(file, new URL(page.url()).hash);
  assert.equal(await again.page.inputValue('#point'), '*');
  assert.equal(await again.page.isChecked('#legend input[value="throughput:flushed"]'), false);
  await page.screenshot({ path: path.join(artifacts, 'viewer-overlay.png'), fullPage: true });
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
  await again.page.close();
  await page.close();
});

test('the file chooser opens another profile, read by the page with coz report\'s rules', async () => {
  const { page, problems, requests } = await open(plot('throughput.coz', '--no-source'));
  assert.deepEqual((await cardLines(page)).length, 2);
  await setAndWait(page, () => page.setInputFiles('#open-file', path.join(golden, 'mod_rs.coz')));
  const native = reportJson('mod_rs.coz');
  assert.deepEqual((await cardLines(page)).sort(), Array.from(new Set(native.series.map((s) => s.line))).sort());
  assert.equal(await page.locator('#open-status').textContent(), 'showing mod_rs.coz');
  // The page's reader (WebAssembly) and coz report agree number for number.
  const text = fs.readFileSync(path.join(golden, 'mod_rs.coz'), 'utf8');
  const inPage = await page.evaluate((t) => window.cozReader.open([new File([t], 'mod_rs.coz')]), text);
  const pageNative = reportJson('mod_rs.coz', '--min-points', '2');
  assert.deepEqual(inPage.series, pageNative.series);
  assert.deepEqual(inPage.summary, pageNative.summary);
  await page.screenshot({ path: path.join(artifacts, 'viewer-opened.png'), fullPage: true });

  // A file that is no profile: one line saying so, and the charts stay.
  await page.setInputFiles('#open-file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('\u0000\u0001garbage\n'.repeat(3)) });
  await page.waitForSelector('#open-status.error');
  assert.match(await page.locator('#open-status').textContent(), /^notes\.txt: no profile record in it \(line 1: .+\)$/);
  assert.equal((await cardLines(page)).length, 3, 'the profile shown stays');
  assert.deepEqual(problems, []);
  assert.deepEqual(requests, [], 'opening reads the file in the page: no network');
  await page.close();
});

test('a profile dropped on the page opens', async () => {
  const { page, problems } = await open(plot('throughput.coz', '--no-source'));
  const text = fs.readFileSync(path.join(golden, 'mod_rs.coz'), 'utf8');
  await setAndWait(page, () => page.evaluate((t) => {
    const data = new DataTransfer();
    data.items.add(new File([t], 'dropped.coz'));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  }, text));
  assert.equal((await cardLines(page)).length, 3);
  assert.equal(await page.locator('#open-status').textContent(), 'showing dropped.coz');
  assert.deepEqual(problems, []);
  await page.close();
});

test('coz compare --html: both programs\' runs per measure, and the prediction on the line\'s curve', async () => {
  const fixtures = env('COZ_FIXTURES');
  const source = path.join(env('COZ_PROGRAMS_SRC'), 'two_hot.c');
  const number = fs.readFileSync(source, 'utf8').split('\n').findIndex((l) => l.includes('LINE:hot_a ')) + 1;
  const line = source + ':' + number;
  const profile = path.join(scratch, 'two_hot.coz');
  let r = spawnSync(cli, ['run', '--quiet', '--budget', '6s', '--fixed-line', line, '--experiment-length', '100ms',
                          '--speedup-step', '25', '-o', profile, '---', path.join(fixtures, 'two_hot'), '300'],
                    { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const file = path.join(scratch, 'compare.html');
  r = spawnSync(cli, ['compare', '-q', '--json', '--layouts', '3', '--profile', profile, '--line', line, '--html', file,
                      '---', path.join(fixtures, 'two_hot'), '10', '---', path.join(fixtures, 'two_hot_fast'), '10'],
                { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  const { page, problems, requests } = await open(file);
  // A row and a chart per measure, each chart with a point per run of each program.
  assert.equal(await page.locator('#measures tbody tr').count(), result.measures.length);
  assert.equal(await page.locator('.compare-card svg.marks').count(), result.measures.length);
  const points = await page.locator('.compare-card').first().locator('path[role="graphics-symbol"]').count();
  assert.ok(points >= result.runs, `a point per run: ${points} marks for ${result.runs} runs`);
  // The verdict on a busy machine may be "no difference" at 99% with three layouts: the row shows
  // the speedup, its interval and a verdict, whichever.
  assert.match(await page.locator('#measures tbody tr').first().textContent(),
               /^wall time.*[+-]\d+\.\d% \[[+-]\d+\.\d%, [+-]\d+\.\d%\].*(faster|no difference|slower)/);
  if (result.prediction && !result.prediction.problem) {
    assert.equal(await page.locator('#prediction').isVisible(), true);
    assert.equal(await page.locator('#prediction-chart svg.marks').count(), 1);
    assert.match(await page.locator('#prediction-text').textContent(), /Predicted there: .*achieved/);
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(requests, [], 'the page must not touch the network');
  await page.screenshot({ path: path.join(artifacts, 'viewer-compare.png'), fullPage: true });
  await page.close();
});
