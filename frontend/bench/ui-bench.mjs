#!/usr/bin/env node
// UI benchmark (run after `npm run build -w frontend`). Measures, against the targets of issue 6:
//   1. gzipped JS of the initial page (index.html's script and modulepreloads)   target < 300 KB
//   2. run start (POST /api/runs) → first live point drawn, in Chromium          target ≤ 1 s
//      against `lfnlab serve --lab fake`
//   3. frame times while the live charts hold a 1-hour, 16-flow run and keep     target: no frame > 50 ms
//      receiving samples (#/bench/charts: max and p99 frame, and chart draw times)
//      (the draw times cover uPlot's canvas calls only; Chromium rasterises the canvas later, at
//      commit, so that cost shows in the frame times, not in the draw times)
// Options: --runs N (first-point repetitions, default 5), --json (machine-readable line at the end).
// LFN_BENCH_UI=<url of an already running UI+API> skips starting the service.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serveArgv } from '../../backend/test/support/serveArgs.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '../..');
const dist = process.env.LFN_BENCH_DIST ?? join(repo, 'frontend/dist');
const args = process.argv.slice(2);
const repetitions = Number(args[args.indexOf('--runs') + 1] ?? 5) || 5;
const TARGETS = { initialJsKB: 300, firstPointMs: 1000, frameMs: 50 };

function initialJs() {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const files = new Set();
  for (const m of html.matchAll(/<script[^>]+src="([^"]+\.js)"/g)) files.add(m[1]);
  for (const m of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g)) files.add(m[1]);
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const buf = readFileSync(join(dist, f.replace(/^\//, '')));
    raw += buf.length;
    gz += gzipSync(buf, { level: 9 }).length;
  }
  return { files: [...files], rawKB: raw / 1024, gzipKB: gz / 1024 };
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function startService() {
  const dir = mkdtempSync(join(tmpdir(), 'lfnlab-ui-bench-'));
  const port = await freePort();
  let log = '';
  const child = spawn(process.execPath, [join(repo, 'backend/bin/lfnlab.js'), ...serveArgv({ port, dir })], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`lfnlab serve exited:\n${log}`);
    try {
      if ((await fetch(`${url}/`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  const password = readFileSync(join(dir, 'data/admin-password'), 'utf8').trim();
  return {
    url,
    password,
    stop: () => {
      child.kill('SIGINT');
      setTimeout(() => rmSync(dir, { recursive: true, force: true }), 2000).unref();
    },
  };
}

const SPEC = `name: ui-bench
duration: 10s
paths: { main: { rtt: 40ms, rate: 20Mbit, buffer: 1bdp } }
flows: [{ name: a, stack: reno }, { name: b, stack: cubic }]
`;

async function firstPoint(browser, url, username, password) {
  const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
  const login = await page.request.post(`${url}/api/auth/login`, { data: { username, password } });
  if (!login.ok()) throw new Error(`login failed: ${login.status()}`);
  const { csrfToken } = await login.json();
  const delays = [];
  for (let i = 0; i < repetitions; i++) {
    // A fresh page load each time: the app is open (as a person would have it) but nothing is cached in memory.
    await page.goto(`${url}/#/runs`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    const t0 = await page.evaluate(
      async ({ spec, csrf }) => {
        window.__lfnFirstPoint = undefined;
        const t = performance.timeOrigin + performance.now();
        const res = await fetch('/api/runs', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify({ text: spec }),
        });
        const run = await res.json();
        if (!res.ok) throw new Error(JSON.stringify(run));
        window.location.hash = `#/runs/${encodeURIComponent(run.id)}/live`;
        return t;
      },
      { spec: SPEC, csrf: csrfToken },
    );
    await page.waitForFunction(() => window.__lfnFirstPoint !== undefined, undefined, { timeout: 30_000 });
    delays.push((await page.evaluate(() => window.__lfnFirstPoint)) - t0);
    // Let the run finish so the next one starts at once instead of queueing behind it.
    await page.getByRole('link', { name: 'See results' }).waitFor({ timeout: 60_000 });
  }
  await page.close();
  delays.sort((a, b) => a - b);
  return { delays, medianMs: delays[Math.floor(delays.length / 2)], maxMs: delays[delays.length - 1] };
}

async function frames(browser, url, username, password) {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.request.post(`${url}/api/auth/login`, { data: { username, password } });
  await page.goto(`${url}/#/bench`);
  await page.waitForFunction(() => window.__lfnBenchResult !== undefined, undefined, { timeout: 120_000 });
  const r = await page.evaluate(() => window.__lfnBenchResult);
  await page.close();
  return r;
}

const ratio = (value, target) => `${(value / target).toFixed(2)}× target`;

async function main() {
  const js = initialJs();
  console.log(
    `initial page JS: ${js.gzipKB.toFixed(1)} KB gzipped (${js.rawKB.toFixed(0)} KB raw, ${js.files.length} files); target < ${TARGETS.initialJsKB} KB: ${ratio(js.gzipKB, TARGETS.initialJsKB)}`,
  );

  const own = !process.env.LFN_BENCH_UI;
  const service = own
    ? await startService()
    : { url: process.env.LFN_BENCH_UI, password: process.env.LFN_BENCH_PASSWORD, stop() {} };
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const fp = await firstPoint(browser, service.url, 'admin', service.password);
    console.log(
      `first live point after POST /api/runs (fake lab, ${repetitions} runs): median ${fp.medianMs.toFixed(0)} ms, max ${fp.maxMs.toFixed(0)} ms; target ≤ ${TARGETS.firstPointMs} ms: ${ratio(fp.maxMs, TARGETS.firstPointMs)} (max)`,
    );
    const fr = await frames(browser, service.url, 'admin', service.password);
    console.log(
      `charts, 1-hour 16-flow run (${fr.seriesCount} series, ${fr.pointsPerSeries} points each after downsampling, filled in ${fr.fillMs.toFixed(0)} ms), streaming at 10 Hz for ${fr.frames} frames: ` +
        `max frame ${fr.maxFrameMs.toFixed(1)} ms, p99 frame ${fr.p99FrameMs.toFixed(1)} ms; one chart's redraw max ${fr.maxDrawMs.toFixed(1)} ms, p99 ${fr.p99DrawMs.toFixed(1)} ms; ` +
        `main-thread tasks > 50 ms: ${fr.longTasks} (longest ${fr.maxLongTaskMs.toFixed(0)} ms); ` +
        `target no frame > ${TARGETS.frameMs} ms: ${ratio(fr.maxFrameMs, TARGETS.frameMs)} (max frame)`,
    );
    if (args.includes('--json'))
      console.log(JSON.stringify({ initialJs: js, firstPoint: fp, frames: fr, targets: TARGETS }));
  } finally {
    await browser.close();
    service.stop();
  }
}

main().catch((e) => {
  console.error(`ui-bench: ${e.stack ?? e}`);
  process.exitCode = 1;
});
