// Build the Go lab agent: static, stripped, no build id, so the same source gives the same bytes.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, runOk } from '@lfnlab/kernels';

export const AGENT_SRC = fileURLToPath(new URL('../../emulator/agent/', import.meta.url));

export function agentSourceHash(dir = AGENT_SRC): string {
  const h = createHash('sha256');
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.go') || f === 'go.mod')
    .sort()) {
    h.update(f)
      .update('\0')
      .update(readFileSync(join(dir, f)))
      .update('\0');
  }
  return h.digest('hex');
}

export async function buildAgent(): Promise<{ path: string; sourceHash: string; goVersion: string }> {
  const sourceHash = agentSourceHash();
  const out = cacheDir('agent', sourceHash.slice(0, 16), 'lfnlab-agent');
  const goVersion = (await runOk(['go', 'version'])).trim();
  if (!existsSync(out)) {
    mkdirSync(join(out, '..'), { recursive: true });
    const tmp = `${out}.tmp-${process.pid}`;
    await runOk(['go', 'build', '-trimpath', '-ldflags=-s -w -buildid=', '-o', tmp, '.'], {
      cwd: AGENT_SRC,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
    });
    renameSync(tmp, out);
  }
  return { path: out, sourceHash, goVersion };
}
