// A student and a paper preset, end to end in Chromium against `lfnlab serve --lab fake`: the
// card says what "Run it" costs and that the whole part is over the student quota (naming the
// limits), offers a variant and length that fit, runs it, and then shows the findings decided on
// that run (inconclusive, n = 1); and a preset whose reproduction is under way shows its findings
// judged provisionally on the runs kept. Screens at 390×844 and 1440×900 go to
// frontend/test-results/screenshots.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Service, shot, startService } from './harness';

// A preset with no published results yet, so its card says "No results yet" until the student runs it.
const PRESET = 'seed000-sinusoidal';
const PREFIX = 'presets';
const UNDER_WAY = 'seed002-selfsimilar';

/** The built backend (the service under test runs it too): the preset's plan as a reproduction runs it. */
interface PresetsApi {
  loadPresets(): { name: string }[];
  presetForReproduction(p: unknown): { part: string; campaign: unknown }[];
}
interface ExpandApi {
  expandCampaign(c: unknown): { id: string }[];
}
const dist = (rel: string) => fileURLToPath(new URL(`../../backend/dist/${rel}`, import.meta.url));

/**
 * One finished run of the preset's reproduction, kept as `preset run --progress` keeps it in
 * RESULTS/NAME/progress: the plan (every variant) and one run's summary, completed with nothing measured.
 */
async function keepOneReproductionRun(results: string, name: string): Promise<void> {
  const presets = (await import(dist('presets/index.js'))) as PresetsApi;
  const { expandCampaign } = (await import(dist('campaign/expand.js'))) as ExpandApi;
  const preset = presets.loadPresets().find((p) => p.name === name);
  const [first] = preset ? presets.presetForReproduction(preset) : [];
  if (!first) throw new Error(`${name} has no reproduction`);
  const variants = expandCampaign(first.campaign);
  const part = join(results, name, 'progress', first.part);
  const run = join(part, 'runs', variants[0]?.id ?? '');
  mkdirSync(run, { recursive: true });
  writeFileSync(join(part, 'campaign.json'), JSON.stringify({ campaign: first.campaign, variants }));
  writeFileSync(
    join(run, 'summary.json'),
    JSON.stringify({ status: 'completed', verdict: 'valid', flows: [], paths: [] }),
  );
}

async function signIn(browser: Browser, url: string, username: string, password: string, width: number) {
  const context = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.getByLabel('User name').fill(username);
  await page.locator('input[type="password"]').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('lab-status').waitFor();
  return { context, page, errors };
}

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/**
 * One run decides nothing: `where` shows an inconclusive finding, the phone page does not scroll
 * sideways and logged no error; the screen is kept as `name`.
 */
async function inconclusiveOnPhone(page: Page, where: Locator, name: string, errors: string[]) {
  expect(await where.getByText('inconclusive').count()).toBeGreaterThan(0);
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await where.scrollIntoViewIfNeeded();
  await shot(page, PREFIX, name);
  expect(errors).toEqual([]);
}

describe('a preset for a student, in Chromium against the fake lab', () => {
  let service: Service;
  let browser: Browser;
  let results: string;

  beforeAll(async () => {
    // No published results and no reproduction under way, whatever this checkout holds of them:
    // the card starts from "No results yet" and then shows what the student's own run decided.
    results = mkdtempSync(join(tmpdir(), 'lfnlab-e2e-results-'));
    service = await startService('fake', ['--fake-speed', '100', '--preset-results', results]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('marks what is over quota, runs the pick that fits, and shows the findings decided on it', async () => {
    const login = await fetch(`${service.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: service.username, password: service.password }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const password = 'e2e-P7q2m-zRt!';
    const made = await fetch(`${service.url}/api/users`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'stu', password, role: 'student', class: null }),
    });
    expect(made.status).toBe(201);

    const { context, page, errors } = await signIn(browser, service.url, 'stu', password, 390);
    await page.goto(`${service.url}/#/presets`);
    const card = page.getByTestId(`preset-${PRESET}`);
    const over = card.getByTestId('quota-over');
    await over.waitFor();
    expect(await over.textContent()).toContain('concurrentRuns');
    expect(await card.getByTestId('run-cost').textContent()).toMatch(/^72 runs · 12 min 00 s of traffic/);
    // The findings come in their own request, after the card: wait for them, then read the card.
    await card
      .getByText(/No results yet/)
      .first()
      .waitFor();
    expect(await card.textContent()).toContain('No results yet');
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await card.scrollIntoViewIfNeeded();
    await shot(page, PREFIX, 'phone-over-quota');

    // Keyboard: the suggestion's button is reachable and takes the pick that fits.
    await over.getByRole('button', { name: 'Use this' }).focus();
    await page.keyboard.press('Enter');
    await card.getByTestId('quota-fits').waitFor();
    expect(await card.getByTestId('run-cost').textContent()).toMatch(/^1 run · 10 s of traffic/);
    await card.getByRole('button', { name: /^Run preset/ }).click();
    await page.waitForURL(/#\/runs\/[^/]+\/live/);
    await page.getByRole('link', { name: 'See results' }).waitFor({ timeout: 60_000 });

    await page.goto(`${service.url}/#/presets`);
    await expect
      .poll(async () => (await card.textContent()) ?? '')
      .toMatch(/Decided on your 1 completed run \(shortened to 10 s/);
    await inconclusiveOnPhone(page, card, 'phone-decided', errors);
    await context.close();

    const wide = await signIn(browser, service.url, 'stu', password, 1440);
    await wide.page.goto(`${service.url}/#/presets`);
    await wide.page.getByTestId(`preset-${PRESET}`).getByTestId('run-cost').waitFor();
    await shot(wide.page, PREFIX, 'desktop');
    expect(wide.errors).toEqual([]);
    await wide.context.close();
  });
  it('marks the findings of a reproduction under way as provisional, with how far it is', async () => {
    await keepOneReproductionRun(results, UNDER_WAY);
    const { context, page, errors } = await signIn(
      browser,
      service.url,
      service.username,
      service.password,
      390,
    );
    await page.goto(`${service.url}/#/presets`);
    const card = page.getByTestId(`preset-${UNDER_WAY}`);
    const findings = card.getByRole('region', { name: 'Findings so far, provisional' });
    await findings.waitFor();
    expect(await findings.textContent()).toMatch(
      /Provisional: its reproduction is under way, judged on the 1 run kept so far of its 36 \(about .+ of lab wall time left\)\./,
    );
    await inconclusiveOnPhone(page, findings, 'phone-provisional', errors);
    await context.close();
  });
});
