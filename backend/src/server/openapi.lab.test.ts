// The API against its own OpenAPI document: schemathesis (from PyPI, in a venv made here) runs
// every check on every operation of a real `lfnlab serve --lab fake` on loopback, and must find
// nothing. Settings and their reasons: backend/fuzz/schemathesis.toml; auth: backend/fuzz/hooks.py.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL_LAB_TIER } from '../../test/support/lab.js';

/** The version verified with this API; bump it deliberately. */
const SCHEMATHESIS = 'schemathesis==4.32.5';
/** Per operation; 100 took ~3 min on a TCG host, half of that is CI's share. */
const MAX_EXAMPLES = FULL_LAB_TIER ? '100' : '50';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const fuzzDir = join(repo, 'backend/fuzz');
const bin = join(repo, 'backend/bin/lfnlab.js');

const hasPython = spawnSync('python3', ['-c', 'import venv, ensurepip'], { stdio: 'ignore' }).status === 0;
if (!hasPython)
  console.warn(
    'openapi.lab.test: skipped: python3 with venv and ensurepip is missing (apt-get install python3-venv)',
  );

let dir: string;
let serve: ChildProcess | null = null;
let url: string;

/** A free loopback port, from the kernel. */
function freePort(): number {
  const out = execFileSync(process.execPath, [
    '-e',
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})",
  ]);
  return Number(String(out).trim());
}

async function waitHealthy(base: string, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`lfnlab serve did not answer at ${base}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.runIf(hasPython)('schemathesis against the OpenAPI document', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-fuzz-'));
    // The venv first (network to PyPI only), while nothing else runs.
    execFileSync('python3', ['-m', 'venv', join(dir, 'venv')], { stdio: 'inherit' });
    execFileSync(
      join(dir, 'venv/bin/pip'),
      ['install', '--quiet', '--disable-pip-version-check', SCHEMATHESIS],
      {
        stdio: 'inherit',
      },
    );
    const port = freePort();
    url = `http://127.0.0.1:${port}`;
    serve = spawn(
      process.execPath,
      [
        bin,
        'serve',
        '--lab',
        'fake',
        '--fake-speed',
        '100',
        '--influx',
        'off',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--data',
        join(dir, 'data'),
        '--runs',
        join(dir, 'runs'),
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await waitHealthy(url, 30_000);
  });
  afterAll(async () => {
    if (serve && serve.exitCode === null) {
      const exited = new Promise((r) => serve?.once('exit', r));
      serve.kill('SIGTERM');
      await exited;
    }
  });

  it('finds no failure with --checks all', async () => {
    const password = readFileSync(join(dir, 'data/admin-password'), 'utf8').trim();
    const login = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(login.status).toBe(200);
    const cookie = /lfn_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const docs = await fetch(`${url}/api/docs/json`, { headers: { cookie: `lfn_session=${cookie}` } });
    const schemaFile = join(dir, 'openapi.json');
    writeFileSync(schemaFile, await docs.text());

    const st = spawnSync(
      join(dir, 'venv/bin/schemathesis'),
      [
        '--config-file',
        join(fuzzDir, 'schemathesis.toml'),
        'run',
        schemaFile,
        '--url',
        url,
        '--checks',
        'all',
        '--max-examples',
        MAX_EXAMPLES,
        '--workers',
        '1',
        '--seed',
        '20261124',
        '--no-color',
      ],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        cwd: dir, // its cache (.schemathesis/) goes there, not into the repository
        env: {
          ...process.env,
          SCHEMATHESIS_HOOKS: 'hooks',
          PYTHONPATH: fuzzDir,
          LFN_URL: url,
          LFN_COOKIE: cookie,
          LFN_CSRF: csrfToken,
        },
      },
    );
    const out = `${st.stdout}\n${st.stderr}`;
    writeFileSync(join(dir, 'schemathesis.txt'), out);
    const summary = out.slice(out.lastIndexOf('SUMMARY'));
    // Quoted line by line: CI reads closing lines such as pytest's "=== 3 warnings in 73 s ===" as
    // a test runner's verdict (a run of no tests), so the tool's own summary must not stand alone.
    const quoted = summary
      .split('\n')
      .filter((line) => !/^=+( .* =+)?$/.test(line.trim()))
      .map((line) => `  schemathesis | ${line}`)
      .join('\n');
    console.log(`schemathesis (${SCHEMATHESIS}, full output ${join(dir, 'schemathesis.txt')}):\n${quoted}`);
    expect(existsSync(schemaFile)).toBe(true);
    // Every operation the document declares was exercised, however many routes there are.
    const doc = JSON.parse(readFileSync(schemaFile, 'utf8')) as { paths: Record<string, object> };
    const operations = Object.values(doc.paths).reduce(
      (n, item) =>
        n + Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k)).length,
      0,
    );
    expect(operations).toBeGreaterThan(30);
    expect(summary).toMatch(new RegExp(`Tested: ${operations}\\b`));
    expect(summary).not.toMatch(/Failures:|Errors:/);
    expect(st.status, out.slice(-20_000)).toBe(0);
  });
});
