// End-to-end plumbing: start `lfnlab serve` (fake or real lab) in a scratch directory, read the
// admin password it writes, launch Debian's Chromium through playwright-core, and save
// screenshots under frontend/test-results/screenshots (gitignored; CI keeps them as artifacts).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { testLabName } from '../../backend/test/support/testLab.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENSHOTS = join(repo, 'frontend/test-results/screenshots');

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface Service {
  url: string;
  username: string;
  password: string;
  log: () => string;
  stop(): Promise<void>;
}

async function waitFor(url: string, ms: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`lfnlab serve exited (${child.exitCode}):\n${log()}`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`lfnlab serve did not answer ${url} within ${ms} ms:\n${log()}`);
}

/** `lfnlab serve --lab fake|TEST_LAB` on a free port with its own data and runs directories. */
export async function startService(lab: 'fake' | 'real', extra: string[] = []): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), `lfnlab-ui-${lab}-`));
  const port = await freePort();
  let out = '';
  const child = spawn(
    process.execPath,
    [
      join(repo, 'backend/bin/lfnlab.js'),
      'serve',
      '--lab',
      // The real lab is this test worker's own, not a second VM named default.
      lab === 'real' ? testLabName() : 'fake',
      '--port',
      String(port),
      '--data',
      join(dir, 'data'),
      '--runs',
      join(dir, 'runs'),
      '--influx',
      'off',
      ...extra,
    ],
    { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/health`, 30_000, child, () => out);
  const password = readFileSync(join(dir, 'data/admin-password'), 'utf8').trim();
  return {
    url,
    username: 'admin',
    password,
    log: () => out,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGINT');
        await new Promise<void>((r) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            r();
          }, 20_000);
          child.once('exit', () => {
            clearTimeout(t);
            r();
          });
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

/** A full-page screenshot named `<prefix>-<name>.png`; returns its path. */
export async function shot(page: Page, prefix: string, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = join(SCREENSHOTS, `${prefix}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Development only: serve a build from another directory with `vite preview`, proxying /api to the
 * service (LFN_E2E_PREVIEW_DIST=/tmp/dist). The tests themselves use the service's own front door.
 */
export async function startPreview(serviceUrl: string, dist: string): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  let out = '';
  const child = spawn(
    process.execPath,
    [
      join(repo, 'node_modules/vite/bin/vite.js'),
      'preview',
      '--outDir',
      dist,
      '--port',
      String(port),
      '--strictPort',
    ],
    {
      cwd: join(repo, 'frontend'),
      env: { ...process.env, LFN_BACKEND: serviceUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/`, 30_000, child, () => out);
  return { url, stop: () => child.kill('SIGTERM') };
}
