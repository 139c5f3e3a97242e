// The visible queue and a finished run's charts, end to end in Chromium against
// `lfnlab serve --lab fake`: students queue runs over the API, one watches her place on the live
// page, the instructor moves and stops class runs, and a finished run's results draw four charts
// from its samples. Screens at 1440×900 and 390×844 go to frontend/test-results/screenshots.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Service, shot, startService } from './harness';

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const PREFIX = 'queue';

const spec = (name: string, duration: string) => `name: ${name}
duration: ${duration}
paths:
  main: { rtt: 40ms, rate: 20Mbit, buffer: 1bdp }
flows:
  - { stack: reno }
  - { stack: cubic }
`;

/** A signed-in API caller (cookie + CSRF), as a script of a student would be. */
async function apiAs(url: string, username: string, password: string) {
  const r = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!r.ok) throw new Error(`login ${username}: ${r.status} ${await r.text()}`);
  const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const { csrfToken } = (await r.json()) as { csrfToken: string };
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
}

/** Uncaught errors in any page of the test: there must be none. */
const pageErrors: string[] = [];

/**
 * Stands in for the browser's Notification before the app loads: permission granted, and every
 * notification shown is recorded in window.__notes (headless Chromium shows none).
 */
function recordNotifications() {
  const notes: string[] = [];
  (window as unknown as { __notes: string[] }).__notes = notes;
  class RecordingNotification {
    static permission = 'granted';
    static requestPermission = async () => 'granted';
    onclick: (() => void) | null = null;
    constructor(title: string) {
      notes.push(title);
    }
  }
  (window as unknown as { Notification: unknown }).Notification = RecordingNotification;
}

async function signIn(
  browser: Browser,
  url: string,
  username: string,
  password: string,
  viewport = DESKTOP,
  init?: () => void,
) {
  const context = await browser.newContext({ viewport });
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`${username}: ${String(e)}`));
  await page.goto(url);
  await page.getByLabel('User name').fill(username);
  await page.locator('input[type="password"]').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('lab-status').waitFor();
  return { context, page };
}

/** What the screen shows now (not the whole page): for phone screens worth looking at. */
async function screenShot(page: Page, name: string) {
  const file = await shot(page, PREFIX, name);
  await page.screenshot({ path: file.replace(/\.png$/, '-screen.png') });
}

/** The page is no wider than the screen (nothing cut off or needing a sideways scroll). */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

interface RunRef {
  id: string;
  status: string;
  queue: { position: number; ahead: number } | null;
}

describe('the queue and results, in Chromium against the fake lab', () => {
  let service: Service;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  // One password for all three (the policy refuses one containing the username).
  const pw = (_u: string) => 'e2e-K8r3q-wXv!';

  beforeAll(async () => {
    service = await startService('fake', ['--fake-speed', '1']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await service?.stop();
  });

  it('shows places, lets the instructor reorder and stop, and draws a finished run’s charts', async () => {
    const admin = await apiAs(service.url, service.username, service.password);
    await admin('PUT', '/api/quotas/student', {
      concurrentRuns: 10,
      maxDurationS: 120,
      maxRateMbps: 100,
      maxFlows: 4,
    });
    await admin('POST', '/api/classes', { name: 'net1' });
    for (const [username, role] of [
      ['ada', 'student'],
      ['bob', 'student'],
      ['teach', 'instructor'],
    ] as const)
      await admin('POST', '/api/users', { username, password: pw(username), role, class: 'net1' });
    const ada = await apiAs(service.url, 'ada', pw('ada'));
    const bob = await apiAs(service.url, 'bob', pw('bob'));

    // A run that holds the lab while the queue is looked at (then its results are read), and
    // long ones behind it.
    const short = await ada<RunRef>('POST', '/api/runs', { text: spec('short', '30s') });
    const a2 = await ada<RunRef>('POST', '/api/runs', { text: spec('ada-long-1', '60s') });
    const a3 = await ada<RunRef>('POST', '/api/runs', { text: spec('ada-long-2', '60s') });
    const b1 = await bob<RunRef>('POST', '/api/runs', { text: spec('bob-long', '60s') });
    // Ada has the lab, so Bob's first run goes before her second: turns across students.
    const places = async () =>
      Object.fromEntries(
        await Promise.all(
          [a2, a3, b1].map(async (r) => [
            r.id,
            (await admin<RunRef>('GET', `/api/runs/${r.id}`)).queue?.position,
          ]),
        ),
      );
    expect(await places()).toEqual({ [b1.id]: 1, [a2.id]: 2, [a3.id]: 3 });

    const adaUi = await signIn(browser, service.url, 'ada', pw('ada'), DESKTOP, recordNotifications);
    contexts.push(adaUi.context);
    // Keyboard: the first Tab reaches "Skip to content", which moves focus to the page; inputs
    // show a 2 px focus ring (it was a 1 px border colour change).
    await adaUi.page.getByRole('heading', { name: 'Experiment designer' }).waitFor();
    await adaUi.page.keyboard.press('Tab');
    expect(await adaUi.page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await adaUi.page.keyboard.press('Enter');
    expect(await adaUi.page.evaluate(() => document.activeElement?.id)).toBe('main-content');
    const name = adaUi.page.getByLabel('Name', { exact: true });
    await name.focus();
    expect(await name.evaluate((el) => getComputedStyle(el).outlineWidth)).toBe('2px');

    // Ada watches her last run: a place and an expected start, not empty charts.
    await adaUi.page.goto(`${service.url}/#/runs/${a3.id}/live`);
    const panel = adaUi.page.getByTestId('queue-panel');
    await panel.waitFor();
    expect(await panel.textContent()).toMatch(/3rd in line, 3 runs ahead; starts in about/);
    expect(await adaUi.page.getByText('streaming').count()).toBe(0);
    expect(await adaUi.page.locator('canvas').count()).toBe(0);
    await expect.poll(() => adaUi.page.getByTestId('queue-status').textContent()).toMatch(/ahead|your turn/);
    await shot(adaUi.page, PREFIX, '01-live-queued-1440');
    // Ada asks to be told when her runs start and end.
    await panel.getByRole('button', { name: 'Notify me when my runs start and end' }).click();
    await panel.getByRole('button', { name: /Notifications on/ }).waitFor();
    await adaUi.page.goto(`${service.url}/#/runs`);
    await adaUi.page.getByTestId('queue-place').first().waitFor();
    await shot(adaUi.page, PREFIX, '02-runs-queued-1440');

    // The instructor moves Ada's last run to the front of the class's runs, then stops Bob's.
    const teachUi = await signIn(browser, service.url, 'teach', pw('teach'));
    contexts.push(teachUi.context);
    await teachUi.page.goto(`${service.url}/#/class`);
    await teachUi.page.getByTestId(`queue-row-${a3.id}`).waitFor();
    await shot(teachUi.page, PREFIX, '03-class-queue-1440');
    await teachUi.page
      .getByRole('button', { name: "Move ada-long-2 (ada) to the front of the class's runs" })
      .click();
    await expect.poll(places).toEqual({ [a3.id]: 1, [b1.id]: 2, [a2.id]: 3 });
    await teachUi.page.getByRole('button', { name: 'Stop bob-long (bob)' }).click();
    await expect.poll(async () => (await admin<RunRef>('GET', `/api/runs/${b1.id}`)).status).toBe('aborted');
    await shot(teachUi.page, PREFIX, '04-class-queue-after-1440');

    // The short run has finished by now (or soon): its results draw four charts from its samples.
    await expect
      .poll(async () => (await admin<RunRef>('GET', `/api/runs/${short.id}`)).status, { timeout: 60_000 })
      .toBe('completed');
    // Her notification said so (within one poll of the run list).
    await expect
      .poll(() => adaUi.page.evaluate(() => (window as unknown as { __notes: string[] }).__notes), {
        timeout: 15_000,
      })
      .toContain('Run completed: short');
    await adaUi.page.goto(`${service.url}/#/runs/${short.id}`);
    const charts = adaUi.page.getByTestId('run-charts');
    await charts.waitFor();
    await expect.poll(() => charts.locator('canvas').count(), { timeout: 15_000 }).toBe(4);
    expect(await charts.getByText('capacity main 20 Mbit/s', { exact: false }).count()).toBeGreaterThan(0);
    // Hover readouts: the legend under a chart names each flow with its value at the cursor.
    // The plot area, once its chart has settled (a chart is rebuilt when its series set grows).
    const first = charts.locator('.u-over').first();
    await expect.poll(() => first.boundingBox().then((b) => (b?.width ?? 0) > 100)).toBe(true);
    const box = await first.boundingBox();
    if (!box) throw new Error('no chart area');
    await adaUi.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    expect(await charts.locator('.u-legend').first().textContent()).toMatch(/reno.*\d/);
    // At 1440 px the flow table shows its RTT column without a sideways scroll.
    const table = adaUi.page.getByTestId('flow-summary');
    const fits = await table.evaluate((t) => {
      const scroller = t.closest('.mantine-ScrollArea-viewport') as HTMLElement | null;
      return !scroller || scroller.scrollWidth <= scroller.clientWidth + 1;
    });
    expect(fits).toBe(true);
    expect(await pageWidth(adaUi.page)).toBeLessThanOrEqual(DESKTOP.width);
    await shot(adaUi.page, PREFIX, '05-results-charts-1440');
    // Drag to zoom, then reset.
    await adaUi.page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
    await adaUi.page.mouse.down();
    await adaUi.page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
    await adaUi.page.mouse.up();
    await adaUi.page.getByRole('button', { name: 'Reset zoom' }).first().click();
    expect(await adaUi.page.getByRole('button', { name: 'Reset zoom' }).count()).toBe(0);

    // An unknown run id: a not-found page, no Stop button.
    await adaUi.page.goto(`${service.url}/#/runs/no-such-run/live`);
    await adaUi.page.getByTestId('not-found').waitFor();
    expect(await adaUi.page.getByRole('button', { name: /Stop/ }).count()).toBe(0);
    await shot(adaUi.page, PREFIX, '06-not-found-1440');

    // Phone: nothing wider than the screen; the drawer closes with Escape.
    const phone = await signIn(browser, service.url, 'ada', pw('ada'), PHONE);
    contexts.push(phone.context);
    // a3 has the lab by now; a2 still waits.
    await phone.page.goto(`${service.url}/#/runs/${a2.id}/live`);
    await phone.page.getByTestId('queue-panel').waitFor();
    expect(await pageWidth(phone.page)).toBeLessThanOrEqual(PHONE.width);
    // Header badges keep their whole text on a phone (they were cut to dots).
    const cut = await phone.page
      .locator('header .mantine-Badge-label')
      .evaluateAll((ls) =>
        ls
          .filter((l) => (l as HTMLElement).offsetParent && l.scrollWidth > l.clientWidth + 1)
          .map((l) => l.textContent),
      );
    expect(cut).toEqual([]);
    // …and nothing in the header's left part runs under what is on its right.
    expect(
      await phone.page.getByTestId('header-left').evaluate((g) => g.scrollWidth <= g.clientWidth + 1),
    ).toBe(true);
    await screenShot(phone.page, '07-live-queued-390');
    await phone.page.goto(`${service.url}/#/runs/${short.id}`);
    await expect.poll(() => phone.page.getByTestId('run-charts').locator('canvas').count()).toBe(4);
    expect(await pageWidth(phone.page)).toBeLessThanOrEqual(PHONE.width);
    await screenShot(phone.page, '08-results-390');
    await phone.page.getByTestId('run-charts').scrollIntoViewIfNeeded();
    await phone.page.screenshot({
      path: (await shot(phone.page, PREFIX, '08b-results-charts-390')).replace(/\.png$/, '-screen.png'),
    });
    await phone.page.getByRole('button', { name: 'Toggle navigation' }).click();
    const nav = phone.page.getByRole('navigation', { name: 'Main navigation' });
    // Collapsed, the drawer is slid off the left edge rather than hidden.
    const onScreen = async () => {
      const b = await nav.boundingBox();
      return b !== null && b.x + b.width > 1;
    };
    await expect.poll(onScreen).toBe(true);
    await screenShot(phone.page, '09-nav-open-390');
    await phone.page.keyboard.press('Escape');
    await expect.poll(onScreen).toBe(false);
    // Back closes it too, and stays on the page.
    await phone.page.getByRole('button', { name: 'Toggle navigation' }).click();
    await expect.poll(onScreen).toBe(true);
    const here = phone.page.url();
    await phone.page.goBack();
    await expect.poll(onScreen).toBe(false);
    expect(phone.page.url()).toBe(here);

    // Compare the finished run with a3 stopped part-way: one chart per run on one scale, a Δ
    // column against the baseline, and bar/box/CDF summaries.
    await ada('POST', `/api/runs/${a3.id}/stop`, {});
    await expect.poll(async () => (await admin<RunRef>('GET', `/api/runs/${a3.id}`)).status).toBe('aborted');
    await adaUi.page.goto(`${service.url}/#/compare?runs=${short.id},${a3.id}`);
    const multiples = adaUi.page.getByTestId('small-multiples');
    await multiples.waitFor({ timeout: 30_000 });
    await expect.poll(() => multiples.locator('canvas').count()).toBe(2);
    await adaUi.page.getByTestId('compare-summaries').waitFor();
    expect(await adaUi.page.getByTestId('compare-summary').textContent()).toMatch(/baseline[\s\S]*[+−±]\d/);
    expect(await pageWidth(adaUi.page)).toBeLessThanOrEqual(DESKTOP.width);
    await shot(adaUi.page, PREFIX, '10-compare-1440');

    // The HTML report draws with the same palette (reno blue, cubic vermillion).
    await adaUi.page.goto(`${service.url}/api/runs/${short.id}/report`);
    await adaUi.page.locator('#fig-goodput svg').waitFor();
    const strokes = await adaUi.page
      .locator('#fig-goodput svg g.series')
      .evaluateAll((ps) => [...new Set(ps.map((p) => p.getAttribute('stroke')?.toUpperCase()))]);
    expect(strokes).toEqual(expect.arrayContaining(['#0072B2', '#D55E00']));
    await shot(adaUi.page, PREFIX, '11-report-1440');

    // The admin page fits 1440 px (its quota table made it 1629 px wide).
    const adminUi = await signIn(browser, service.url, service.username, service.password);
    contexts.push(adminUi.context);
    await adminUi.page.goto(`${service.url}/#/admin`);
    await adminUi.page.getByText('Quotas per role').waitFor();
    await adminUi.page
      .getByRole('row', { name: /student/ })
      .first()
      .waitFor();
    expect(await pageWidth(adminUi.page)).toBeLessThanOrEqual(DESKTOP.width);
    await shot(adminUi.page, PREFIX, '12-admin-1440');

    // Clean up: nothing left running when the service stops.
    await ada('POST', `/api/runs/${a2.id}/stop`, {}).catch(() => undefined);
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
