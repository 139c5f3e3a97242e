// The UI end to end against the real TCG lab (`lfnlab serve --lab real`): boots the qemu lab
// (~10 s), then the same walk-through as the fake-lab test with runs of a few seconds at 20 Mbit/s
// (the designer run) and a preset shortened by the API's `shorten` option.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { launchBrowser, type Service, startService } from './harness';
import { runUiScenario } from './scenario';

describe('web UI against the real lab', () => {
  let service: Service;
  let browser: Browser;
  beforeAll(async () => {
    service = await startService('real');
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('logs in, designs, runs, watches live, reads results, downloads CSV, runs a preset, compares', async () => {
    await runUiScenario({
      browser,
      url: service.url,
      username: service.username,
      password: service.password,
      prefix: 'real',
      spec: { duration: '5s', rate: '20Mbit', rtt: '40ms' },
      // 8 variants of one Reno flow; the first runs, the rest are stopped from the campaigns page.
      preset: { id: 'seed003-responsiveness', shortenS: 5 },
      // The first run also waits for the lab to boot.
      runTimeoutMs: 240_000,
    }).catch((e) => {
      // The service's own account of what happened is the first thing to read on a failure.
      console.error(`lfnlab serve log (tail):\n${service.log().slice(-4000)}`);
      throw e;
    });
  }, 900_000);
});
