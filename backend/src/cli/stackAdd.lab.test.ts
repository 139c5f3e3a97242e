// Issue 19, bring your own stack, in the real lab: a vendor-style module (the fixture
// backend/test/fixtures/vendor-stack, Reno-like, named lfnvendor) added with `lfnlab stack add` to
// a throw-away data dir (the user's registry is untouched), then `lfnlab selftest --stacks
// lfnvendor`: the next image carries the module and loads it at boot (the lab restarts on the new
// image), the stack passes the selftest as a loss-based stack, and the run's environment.json
// names the module with its source hash and origin 'added'; then a 4 s run sets the module's own
// writable parameter (beta_pct) through stackParams and reads it back. Lab time: one stack's selftest
// (two runs of 10 s and 6 s) plus the image rebuild and one boot; the next lab test that builds the
// image without the stack reboots the lab again.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { TEST_LAB } from '../../test/support/lab.js';

const CLI = fileURLToPath(new URL('../../bin/lfnlab.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../test/fixtures/vendor-stack', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'lfnlab-stackadd-'));
// Only the registry moves: the kernel, headers and image caches stay shared with the other tests.
const env = { ...process.env, LFNLAB_DATA: join(tmp, 'data') };

const lfnlab = (args: string[], timeout = 600_000) => {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', timeout, env });
  // How it ended too: a CI run once showed a selftest that stopped after 2 s with no output.
  console.log(
    `$ lfnlab ${args.join(' ')}\n${r.stdout}${r.stderr}(exit ${r.status}${r.signal ? `, signal ${r.signal}` : ''}${r.error ? `, ${r.error.message}` : ''})`,
  );
  return r;
};

it('an added stack is built, carried, loaded, selftested and recorded with its source hash', {
  timeout: 1_800_000,
}, () => {
  const add = lfnlab(['stack', 'add', FIXTURE]);
  expect(add.status).toBe(0);
  expect(add.stdout).toMatch(/^stack lfnvendor: added$/m);
  expect(add.stdout).toMatch(/built {4}.*tcp_lfnvendor\.ko/);
  const listed = JSON.parse(lfnlab(['stack', 'list', '--json']).stdout) as {
    name: string;
    origin: string;
    sourceHash: string;
  }[];
  const added = listed.find((s) => s.name === 'lfnvendor');
  expect(added).toMatchObject({ origin: 'added', module: 'tcp_lfnvendor' });
  const sourceHash = added?.sourceHash as string;
  expect(sourceHash).toMatch(/^[0-9a-f]{64}$/);

  const out = join(tmp, 'selftest');
  const t0 = Date.now();
  const st = lfnlab(['selftest', '--stacks', 'lfnvendor', '--out', out, '--lab', TEST_LAB], 1_500_000);
  console.log(`selftest wall time ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  expect(st.stdout, `exit ${st.status} ${st.signal ?? ''} ${st.stderr}`).toMatch(/^lfnvendor\s.*\spass\s*$/m);
  expect(st.status).toBe(0);

  for (const run of ['lfnvendor-idle', 'lfnvendor-loss']) {
    const e = JSON.parse(readFileSync(join(out, run, 'environment.json'), 'utf8'));
    expect(e.agent.stacksAvailable).toContain('lfnvendor');
    expect(e.agent.boot.modules.find((m: { name: string }) => m.name === 'tcp_lfnvendor')).toMatchObject({
      ok: true,
    });
    const rec = e.addedStacks.find((s: { name: string }) => s.name === 'lfnvendor');
    expect(rec).toMatchObject({
      module: 'tcp_lfnvendor',
      origin: 'added',
      sourceHash,
      file: 'extra/tcp_lfnvendor.ko',
      loaded: true,
    });
    // The module the lab loaded is the one the image build made from these sources.
    expect(rec.loadedSha256).toBe(rec.sha256);
    expect(e.image.stacks.added.map((s: { sourceHash: string }) => s.sourceHash)).toEqual([sourceHash]);
    expect(e.knownStacks).toContain('lfnvendor');
  }

  // Its own writable module parameter is set for a run, in force while the flow runs, and put back.
  expect(lfnlab(['stack', 'list']).stdout).toMatch(/^lfnvendor parameters: beta_pct=50 \(int\)/m);
  const specFile = join(tmp, 'beta.yaml');
  writeFileSync(
    specFile,
    'name: vendor-beta\nduration: 4s\npaths: { main: { rtt: 40ms, rate: 20Mbit } }\nflows: [{ stack: lfnvendor }]\nstackParams: { lfnvendor: { beta_pct: 70 } }\n',
  );
  const runDir = join(tmp, 'beta-run');
  const run = lfnlab(['run', specFile, '--out', runDir, '--lab', TEST_LAB], 900_000);
  expect(run.status).toBe(0);
  for (const when of ['before', 'after'])
    expect(JSON.parse(readFileSync(join(runDir, `stack-params-${when}.json`), 'utf8')), when).toEqual({
      lfnvendor: { beta_pct: 70 },
    });
  const teardown = JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8')).teardown.cmds[0];
  expect(teardown).toMatchObject({
    argv: ['tee', '/sys/module/tcp_lfnvendor/parameters/beta_pct'],
    stdin: '50\n',
  });
});
