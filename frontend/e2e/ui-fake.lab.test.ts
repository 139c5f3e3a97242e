// The UI end to end against `lfnlab serve --lab fake`: the same walk-through as the real-lab test,
// in seconds, so a UI regression shows up before the slow test runs.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { launchBrowser, type Service, startPreview, startService } from './harness';
import { runUiScenario } from './scenario';

describe('web UI against the fake lab', () => {
  let service: Service;
  let browser: Browser;
  let preview: { url: string; stop(): void } | undefined;
  beforeAll(async () => {
    service = await startService('fake', ['--fake-speed', '2']);
    const dist = process.env.LFN_E2E_PREVIEW_DIST;
    if (dist) preview = await startPreview(service.url, dist);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    preview?.stop();
    await service?.stop();
  });

  it('logs in, designs, runs, watches live, reads results, downloads CSV, runs a preset, compares', async () => {
    await runUiScenario({
      browser,
      url: preview?.url ?? service.url,
      username: service.username,
      password: service.password,
      prefix: 'fake',
      spec: { duration: '6s', rate: '20Mbit', rtt: '40ms' },
      preset: { id: 'seed003-responsiveness', shortenS: 5 },
      runTimeoutMs: 60_000,
    }).catch((e) => {
      // The service's own account of what happened is the first thing to read on a failure.
      console.error(`lfnlab serve log (tail):\n${service.log().slice(-4000)}`);
      throw e;
    });
  }, 240_000);
});
