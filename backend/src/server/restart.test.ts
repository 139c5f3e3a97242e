import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminClient, login, runEnded, SHORT_SPEC, testServer } from '../../test/support/testkit.js';
import type { Run } from '../service/types.js';

describe('restarting the service', () => {
  it('ends a run that was running as failed with its partial data, re-queues queued ones, keeps accounts', async () => {
    const first = await testServer({ fake: { timeScale: 1 } });
    const admin = await adminClient(first);
    const password = first.admin?.password as string;
    const running = await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC.replace('4s', '60s') });
    const queued = await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC });
    const broken = await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC });
    await new Promise<void>((resolve) => {
      const off = first.services.hub.open(running.id).subscribe((m) => {
        if (m.type === 'progress' && m.elapsedS >= 1) {
          off();
          resolve();
        }
      });
    });
    // Abruptly: the run stops dead and the worker never records anything (as if the process died).
    first.driver.freeze();
    await first.app.close();
    const samplesFile = join(first.dirs.runs, running.id, 'samples', 'tcp.jsonl');
    const linesAtCrash = readFileSync(samplesFile, 'utf8').trim().split('\n').length;
    expect(linesAtCrash).toBeGreaterThan(5);
    const onDisk = JSON.parse(readFileSync(join(first.dirs.runs, running.id, 'service.json'), 'utf8')) as Run;
    expect(onDisk.status).toBe('running');
    // A queued run's text no longer validates (as after a schema change): checked once, at restart.
    const brokenText = join(first.dirs.runs, broken.id, 'spec.yaml');
    writeFileSync(brokenText, SHORT_SPEC.replace('stack: cubic', 'stack: tahoe'));

    const second = await testServer({ dirs: first.dirs, fake: { timeScale: 50 } });
    try {
      expect(second.admin).toBeNull();
      const a = await login(second, 'admin', password);
      const after = await a.json<Run>('GET', `/api/runs/${running.id}`);
      expect(after).toMatchObject({ status: 'failed', partial: true });
      expect(after.error).toMatch(/service stopped/);
      const summary = await a.json<{ status: string; flows: unknown[] }>(
        'GET',
        `/api/runs/${running.id}/summary`,
      );
      expect(summary.status).toBe('failed');
      expect(summary.flows).toHaveLength(2);
      expect(existsSync(samplesFile)).toBe(true);
      const csv = await a.req('GET', `/api/runs/${running.id}/export/csv?kind=tcp`);
      expect(csv.body.trim().split('\n').length - 1).toBeGreaterThanOrEqual(linesAtCrash);
      expect((await runEnded(second, queued.id)).status).toBe('completed');
      const refused = await a.json<Run>('GET', `/api/runs/${broken.id}`);
      expect(refused).toMatchObject({ status: 'failed', partial: false });
      expect(refused.error).toMatch(/spec no longer valid: flows\.1\.stack: unknown stack "tahoe"/);
    } finally {
      await second.close();
    }
  });

  it('lists run directories the CLI wrote, owned by admin', async () => {
    const s = await testServer();
    try {
      const a = await adminClient(s);
      const run = await a.json<Run>('POST', '/api/runs', { text: SHORT_SPEC });
      await runEnded(s, run.id);
      const { cpSync, rmSync } = await import('node:fs');
      cpSync(join(s.dirs.runs, run.id), join(s.dirs.runs, 'cli-run'), { recursive: true });
      rmSync(join(s.dirs.runs, 'cli-run', 'service.json'));
      await s.close();
      const again = await testServer({ dirs: s.dirs });
      try {
        const b = await login(again, 'admin', s.admin?.password as string);
        const cli = await b.json<Run>('GET', '/api/runs/cli-run');
        expect(cli).toMatchObject({ owner: 'admin', status: 'completed', verdict: 'valid', name: 'short' });
      } finally {
        await again.close();
      }
    } finally {
      await s.close();
    }
  });
});
