// The lab agent's own Go tests (framing, sessions, steps, process supervision), run as part of
// the project's test command. Its behaviour in the real lab is covered by the *.lab.test.ts files.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('lab agent (Go)', () => {
  it('passes go test and go vet', () => {
    const cwd = fileURLToPath(new URL('../agent/', import.meta.url));
    const vet = spawnSync('go', ['vet', './...'], { cwd, encoding: 'utf8' });
    expect(vet.status, vet.stderr).toBe(0);
    const r = spawnSync('go', ['test', '-count=1', './...'], { cwd, encoding: 'utf8', timeout: 300_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^ok\s+lfnlab\/agent/m);
  }, 300_000);
});
