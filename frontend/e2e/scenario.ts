// The browser walk-through shared by the fake-lab and real-lab end-to-end tests: log in, check the
// header, get a validation error next to its field, design and run a short experiment, watch live
// points arrive, read the summary and verdict, download a CSV and check it, run a shortened preset,
// compare the two runs. Every screen is photographed.
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { shot } from './harness';

export interface ScenarioOptions {
  browser: Browser;
  /** Where the UI is served (the service itself: same origin as /api). */
  url: string;
  username: string;
  password: string;
  prefix: string;
  /** Designer run: short and slow enough for a TCG lab. */
  spec: { duration: string; rate: string; rtt: string };
  preset: { id: string; shortenS: number };
  /** Longest wait for a run to finish, ms. */
  runTimeoutMs: number;
}

async function login(page: Page, o: ScenarioOptions) {
  await page.goto(o.url);
  await page.getByLabel('User name').waitFor();
  await shot(page, o.prefix, '01-login');
  await page.getByLabel('User name').fill(o.username);
  await page.locator('input[type="password"]').fill(o.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.getByTestId('current-user').textContent()).toBe(o.username);
  await page.getByTestId('lab-status').waitFor();
}

/** The error text an input points at through aria-describedby (how Mantine ties them together). */
async function describedError(page: Page, label: string): Promise<string> {
  return page.getByLabel(label, { exact: true }).evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
}

async function waitForRunEnd(page: Page, timeoutMs: number) {
  await page.getByRole('link', { name: 'See results' }).waitFor({ timeout: timeoutMs });
}

async function firstPointDelay(page: Page, timeoutMs: number): Promise<number> {
  await page.waitForFunction(() => window.__lfnFirstPoint !== undefined, undefined, { timeout: timeoutMs });
  return page.evaluate(() => window.__lfnFirstPoint as number);
}

export async function runUiScenario(o: ScenarioOptions): Promise<{ runIds: string[] }> {
  const context = await o.browser.newContext({
    viewport: { width: 1366, height: 800 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await login(page, o);
    await page.getByRole('heading', { name: 'Experiment designer' }).waitFor();
    await shot(page, o.prefix, '02-designer');

    // Validation from the shared schema, next to the field it concerns.
    await page.getByLabel('RTT', { exact: true }).fill('70');
    await expect.poll(() => describedError(page, 'RTT')).toMatch(/needs a unit/);
    await expect
      .poll(() => page.getByLabel('RTT', { exact: true }).getAttribute('aria-invalid'))
      .toBe('true');
    await shot(page, o.prefix, '03-designer-validation');

    // A short experiment the lab can emulate faithfully.
    await page.getByLabel('RTT', { exact: true }).fill(o.spec.rtt);
    await page.getByLabel('Bottleneck rate', { exact: true }).fill(o.spec.rate);
    await page.getByLabel('Duration', { exact: true }).fill(o.spec.duration);
    await page.getByLabel('Name', { exact: true }).fill('e2e-reno-cubic');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Spec is valid' }).count()).toBe(1);
    await expect.poll(() => page.getByTestId('theory-main').textContent()).toMatch(/BDP/);
    await page.getByRole('button', { name: 'Launch run' }).click();
    await page.waitForURL(/#\/runs\/[^/]+\/live$/);
    const designerRun = decodeURIComponent(/#\/runs\/([^/]+)\/live/.exec(page.url())?.[1] ?? '');
    // The first run of a fresh service may also wait for the lab to boot.
    await firstPointDelay(page, o.runTimeoutMs);
    await shot(page, o.prefix, '04-live');
    await waitForRunEnd(page, o.runTimeoutMs);
    await shot(page, o.prefix, '05-live-done');

    // Results: summary table, verdict with reasons, metrics with definitions.
    await page.getByRole('link', { name: 'See results' }).click();
    await page.getByTestId('flow-summary').waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.getByTestId('flow-summary').textContent())
      .toMatch(/reno[\s\S]*cubic|cubic[\s\S]*reno/);
    await expect.poll(() => page.getByTestId('verdict').textContent()).toMatch(/valid|suspect|invalid/);
    // Where it ran: the commit of this checkout, which ran and judged the run.
    await expect
      .poll(() => page.getByTestId('provenance').textContent(), { timeout: 10_000 })
      .toMatch(/lfnlab\s*\d+\.\d+\.\d+ · commit [0-9a-f]{12}/);
    await shot(page, o.prefix, '06-results');

    // CSV download: goodput per flow, with its header and rows for both flows.
    await page.getByRole('button', { name: /CSV/ }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('menuitem', { name: /Goodput per flow/ }).click(),
    ]);
    const csv = readFileSync((await download.path()) as string, 'utf8');
    const [header, ...rows] = csv.trim().split('\n');
    expect(header).toBe('t_s,flow,goodput_bps,bytes_received');
    expect(rows.length).toBeGreaterThan(2);
    expect(new Set(rows.map((r) => r.split(',')[1]))).toEqual(new Set(['reno', 'cubic']));
    expect(rows.every((r) => Number.isFinite(Number(r.split(',')[2])))).toBe(true);

    // A paper preset, shortened, run from the gallery.
    await page.goto(`${o.url}/#/presets`);
    const card = page.getByTestId(`preset-${o.preset.id}`);
    await card.waitFor();
    await shot(page, o.prefix, '07-presets');
    await card.getByLabel('Shorten to (s)').fill(String(o.preset.shortenS));
    await card.getByRole('button', { name: /Run preset/ }).click();
    await page.waitForURL(/#\/runs\/[^/]+\/live$/);
    const presetRun = decodeURIComponent(/#\/runs\/([^/]+)\/live/.exec(page.url())?.[1] ?? '');
    await page.waitForFunction(() => document.querySelectorAll('.uplot').length >= 4);
    await waitForRunEnd(page, o.runTimeoutMs);
    await shot(page, o.prefix, '08-live-preset');

    // The rest of the preset's campaign is not needed here: stop it from the campaigns page.
    await page.goto(`${o.url}/#/campaigns`);
    await page.getByRole('heading', { name: 'Campaigns', exact: true }).waitFor();
    const stopRest = page.getByRole('button', { name: /Stop the rest/ });
    await stopRest.first().waitFor({ timeout: 15_000 });
    await stopRest.first().click();
    // A real lab's run stops at its next phase boundary and then tears down: on a dilated lab that
    // took over 60 s once in a full CI run (the runs list refreshes every 5 s besides).
    await stopRest.first().waitFor({ state: 'detached', timeout: 120_000 });
    await shot(page, o.prefix, '09-campaigns');

    // Compare the two runs.
    await page.goto(
      `${o.url}/#/compare?runs=${encodeURIComponent(designerRun)},${encodeURIComponent(presetRun)}`,
    );
    await page.getByTestId('compare-summary').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('compare-summary').textContent()).toMatch(/e2e-reno-cubic/);
    await page.waitForFunction(() => document.querySelectorAll('.uplot').length >= 2, undefined, {
      timeout: 30_000,
    });
    await shot(page, o.prefix, '10-compare');

    await page.goto(`${o.url}/#/runs`);
    await page.getByRole('table').first().waitFor();
    await shot(page, o.prefix, '11-runs');
    await page.goto(`${o.url}/#/admin`);
    await page.getByTestId('users').waitFor();
    await shot(page, o.prefix, '12-admin');
    await page.goto(`${o.url}/#/class`);
    await page.getByRole('heading', { name: /Class runs/ }).waitFor();
    await shot(page, o.prefix, '13-class');

    // Down to a small laptop screen: nothing may need sideways scrolling of the page itself.
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(`${o.url}/#/designer`);
    await page.getByRole('heading', { name: 'Experiment designer' }).waitFor();
    await shot(page, o.prefix, '14-designer-1024');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);

    expect(errors).toEqual([]);
    return { runIds: [designerRun, presetRun] };
  } catch (e) {
    await shot(page, o.prefix, 'failure').catch(() => {});
    throw e;
  } finally {
    await context.close();
  }
}
