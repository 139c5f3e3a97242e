// A student and a paper preset, end to end in Chromium against `lfnlab serve --lab fake`: the
// card says what "Run it" costs and that the whole part is over the student quota (naming the
// limits), offers a variant and length that fit, runs it, and then shows the findings decided on
// that run (inconclusive, n = 1). Screens at 390×844 and 1440×900 go to
// frontend/test-results/screenshots.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Service, shot, startService } from './harness';

// A preset with no published results yet, so its card says "No results yet" until the student runs it.
const PRESET = 'seed000-sinusoidal';
const PREFIX = 'presets';

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

describe('a preset for a student, in Chromium against the fake lab', () => {
  let service: Service;
  let browser: Browser;

  beforeAll(async () => {
    // No published results and no reproduction under way, whatever this checkout holds of them:
    // the card starts from "No results yet" and then shows what the student's own run decided.
    const results = mkdtempSync(join(tmpdir(), 'lfnlab-e2e-results-'));
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
    expect(await card.getByText('inconclusive').count()).toBeGreaterThan(0);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await card.scrollIntoViewIfNeeded();
    await shot(page, PREFIX, 'phone-decided');
    expect(errors).toEqual([]);
    await context.close();

    const wide = await signIn(browser, service.url, 'stu', password, 1440);
    await wide.page.goto(`${service.url}/#/presets`);
    await wide.page.getByTestId(`preset-${PRESET}`).getByTestId('run-cost').waitFor();
    await shot(wide.page, PREFIX, 'desktop');
    expect(wide.errors).toEqual([]);
    await wide.context.close();
  });
});
