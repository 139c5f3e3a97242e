// A lab class end to end against `lfnlab serve --lab fake` in Chromium: an instructor creates a
// class, imports 30 students from CSV (reading their passwords off the printable sign-in sheet) and
// publishes a lab sheet; 29 students, scripted over the API, predict, run and answer; one student
// does the same in the browser, their run queued behind the others; the class table fills in with
// grades and exports as CSV. Every new screen is photographed at 1440×900 and 390×844.
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Service, shot, startService } from './harness';

const STUDENTS = 30;
const SHEET = 'fairness';
const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

interface ApiSession {
  cookie: string;
  csrf: string;
}

async function apiLogin(url: string, username: string, password: string): Promise<ApiSession> {
  const r = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!r.ok) throw new Error(`login ${username}: ${r.status} ${await r.text()}`);
  const cookie = (r.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  return { cookie, csrf: ((await r.json()) as { csrfToken: string }).csrfToken };
}

async function api<T>(url: string, s: ApiSession, method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: {
      cookie: s.cookie,
      'x-csrf-token': s.csrf,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

async function signIn(page: Page, url: string, username: string, password: string) {
  await page.goto(url);
  await page.getByLabel('User name').fill(username);
  await page.locator('input[type="password"]').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.getByTestId('current-user').textContent()).toBe(username);
}

/** The navigation slides in and out when the width changes: photograph it where it ends. */
async function navbarSettled(page: Page, want: 'shown' | 'hidden') {
  await page.waitForFunction((w) => {
    const nav = document.querySelector('[aria-label="Main navigation"]');
    if (!nav) return true;
    const r = nav.getBoundingClientRect();
    return w === 'shown' ? r.left >= 0 : r.right <= 0;
  }, want);
}

/** The same screen at both sizes (phone last, then back to wide). */
async function shots(page: Page, name: string) {
  await page.setViewportSize(WIDE);
  await navbarSettled(page, 'shown');
  await shot(page, 'classroom', `${name}-1440`);
  await page.setViewportSize(PHONE);
  await navbarSettled(page, 'hidden');
  await shot(page, 'classroom', `${name}-390`);
  // Nothing may be wider than the phone's screen but tables, which scroll inside their box.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} overflows a 390 px screen by ${overflow} px`).toBeLessThanOrEqual(0);
  await page.setViewportSize(WIDE);
}

async function choose(page: Page, label: string, option: RegExp) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option }).click();
}

describe('a lab class against the fake lab', () => {
  let service: Service;
  let browser: Browser;
  beforeAll(async () => {
    service = await startService('fake', ['--fake-speed', '60']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('imports 30 students, publishes a sheet, the class runs it and the class table fills in with grades', async () => {
    const { url } = service;
    const errors: string[] = [];
    try {
      const admin = await apiLogin(url, service.username, service.password);
      const teacherPassword = 'lab-lead-e2e-7731';
      await api(url, admin, 'POST', '/api/users', {
        username: 'teach',
        password: teacherPassword,
        role: 'instructor',
      });

      // The instructor, in the browser: a class, 30 students from CSV, the sign-in sheet.
      const tctx = await browser.newContext({ viewport: WIDE, acceptDownloads: true });
      const tp = await tctx.newPage();
      tp.on('pageerror', (e) => errors.push(String(e)));
      await signIn(tp, url, 'teach', teacherPassword);
      await tp.goto(`${url}/#/classroom/classes`);
      await tp.getByLabel('New class').fill('net101');
      await tp.getByRole('button', { name: 'Create class' }).click();
      await tp.getByRole('heading', { name: 'Class net101' }).waitFor();
      const csv = [
        'username,display',
        ...Array.from({ length: STUDENTS }, (_, i) => `st${i + 1},"Student ${i + 1}"`),
      ].join('\n');
      await tp.getByLabel('Class list (CSV)').fill(csv);
      await tp.getByRole('button', { name: 'Import and make passwords' }).click();
      await tp.getByTestId('sign-in-sheet').waitFor();
      const passwords = Object.fromEntries(
        await tp
          .locator('[data-testid^="password-"]')
          .evaluateAll((els) => els.map((e) => [e.getAttribute('data-testid')?.slice(9), e.textContent])),
      ) as Record<string, string>;
      expect(Object.keys(passwords)).toHaveLength(STUDENTS);
      await expect.poll(() => tp.getByTestId('roster').locator('tbody tr').count()).toBe(STUDENTS);
      await shots(tp, '01-class-sign-in-sheet');
      await tp.getByRole('button', { name: 'Close' }).click();
      await tp.goto(`${url}/#/classroom/classes`);
      await tp.getByTestId('classes').waitFor();
      await shots(tp, '02-classes');

      // Publish the sheet to the class.
      await tp.goto(`${url}/#/classroom/assignments`);
      await choose(tp, 'Class', /net101/);
      await choose(tp, 'Sheet', /Intra- versus inter-protocol fairness/);
      await tp.getByRole('button', { name: 'Publish' }).click();
      await tp.getByRole('link', { name: 'Open its class table' }).waitFor();
      await shots(tp, '03-assignments-instructor');
      const teacher = await apiLogin(url, 'teach', teacherPassword);
      const [assignment] = await api<{ id: string; title: string }[]>(
        url,
        teacher,
        'GET',
        '/api/assignments',
      );
      if (!assignment) throw new Error('no assignment published');

      // 29 students over the API: predict, run (through the queue), answer.
      const scripted = Array.from({ length: STUDENTS - 1 }, (_, i) => `st${i + 2}`);
      await Promise.all(
        scripted.map(async (name, i) => {
          const s = await apiLogin(url, name, passwords[name] as string);
          const mine = await api<{ id: string }[]>(url, s, 'GET', '/api/assignments');
          expect(mine.map((a) => a.id)).toEqual([assignment.id]);
          await api(url, s, 'POST', `/api/assignments/${assignment.id}/runs`, {
            prediction: `CUBIC takes about ${60 + (i % 4) * 5} % of the link`,
            values: { 'flows.1.stack': i % 3 === 0 ? 'cubic' : 'reno', 'paths.main.rtt': 20 + (i % 6) * 20 },
          });
          await api(url, s, 'PUT', `/api/assignments/${assignment.id}/answers`, {
            answers: { compare: `answer of ${name}`, why: 'window growth differs' },
          });
        }),
      );

      // One student in the browser, on a phone-sized and a wide screen.
      const sctx = await browser.newContext({ viewport: WIDE });
      const sp = await sctx.newPage();
      sp.on('pageerror', (e) => errors.push(String(e)));
      await signIn(sp, url, 'st1', passwords.st1 as string);
      await sp.goto(`${url}/#/classroom/assignments`);
      await sp.getByRole('link', { name: assignment.title }).click();
      await sp.getByRole('heading', { name: assignment.title }).waitFor();
      await shots(sp, '04-assignment-student-before');
      await choose(sp, "Second flow's stack", /^reno$/);
      await sp.getByLabel('Base RTT').fill('80');
      await sp.getByLabel('Your prediction').fill('CUBIC will take about 70 % of the link; Jain near 0.8');
      await sp.getByRole('button', { name: 'Run the experiment' }).click();
      await sp.getByRole('link', { name: 'Watch it live' }).waitFor();
      // Queued behind the 29 other runs; graded (or stuck, with its reason) when it ends.
      await expect
        .poll(() => sp.getByTestId('score').getAttribute('data-state'), { timeout: 240_000, interval: 1000 })
        .toMatch(/^(graded|stuck)$/);
      expect(await sp.getByTestId('score').textContent()).toMatch(/^\d of 5 points$/);
      expect(await sp.getByTestId('checkpoints').textContent()).not.toContain('no usable run yet');
      await sp.getByLabel(/1\. Report Jain/).fill('Jain 0.8 with Reno; both shares printed above');
      await sp.getByLabel(/2\. Explain/).fill('CUBIC grows faster than one segment per RTT');
      await sp.getByRole('button', { name: 'Save answers' }).click();
      await sp.getByText(/^Saved at/).waitFor();
      await shots(sp, '05-assignment-student-graded');
      await sp.goto(`${url}/#/classroom/assignments`);
      await sp.getByTestId('assignments').waitFor();
      await shots(sp, '06-assignments-student');
      await sp.goto(`${url}/#/classroom/account`);
      await sp.getByRole('heading', { name: 'Your account' }).waitFor();
      await sp.getByLabel('Name').fill('my script');
      await sp.getByRole('button', { name: 'New token' }).click();
      await sp.getByTestId('new-token').waitFor();
      await shots(sp, '07-account');

      // The class table fills in: every student graded (or stuck with a reason), none waiting.
      await tp.goto(`${url}/#/classroom/assignments/${assignment.id}/table`);
      await tp.getByTestId('class-table').waitFor();
      const count = async (state: string) =>
        Number(await tp.getByTestId(`count-${state}`).getAttribute('data-count'));
      const settled = async () => (await count('not-started')) + (await count('waiting'));
      await expect.poll(settled, { timeout: 240_000, interval: 1000 }).toBe(0);
      const graded = await count('graded');
      expect(graded + (await count('stuck'))).toBe(STUDENTS);
      expect(graded).toBeGreaterThan(0);
      for (const name of ['st1', 'st2', `st${STUDENTS}`])
        expect(await tp.getByTestId(`grade-${name}`).textContent()).toMatch(/^\d\/5$/);
      await tp.getByRole('button', { name: 'Show the work of st2', exact: true }).click();
      await expect.poll(() => tp.getByTestId('details-st2').textContent()).toContain('answer of st2');
      await shots(tp, '08-class-table');

      const [download] = await Promise.all([
        tp.waitForEvent('download'),
        tp.getByRole('link', { name: 'Export CSV' }).click(),
      ]);
      const lines = readFileSync((await download.path()) as string, 'utf8')
        .trim()
        .split('\r\n');
      expect(lines).toHaveLength(STUDENTS + 1);
      expect(lines[0]).toMatch(
        /^username,display,state,.*,check_inter,check_intra,check_busy,score,max_score/,
      );
      const st1 = lines.find((l) => l.startsWith('st1,')) ?? '';
      expect(st1).toContain('CUBIC will take about 70 %');
      expect(st1).toMatch(/,graded,|,stuck,/);

      // A forgotten password: the instructor resets it, the old one stops working, the new one signs in.
      await tp.goto(`${url}/#/classroom/classes`);
      await tp.getByRole('link', { name: 'net101', exact: true }).click();
      tp.once('dialog', (d) => void d.accept());
      await tp.getByRole('button', { name: 'Reset the password of st30', exact: true }).click();
      const fresh = (await tp.getByTestId('password-st30').textContent()) ?? '';
      expect(fresh).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
      expect(fresh).not.toBe(passwords.st30);
      await expect(apiLogin(url, 'st30', passwords.st30 as string)).rejects.toThrow(/401/);
      await apiLogin(url, 'st30', fresh);
      await shots(tp, '09-class-password-reset');
      expect(errors).toEqual([]);
    } catch (e) {
      console.error(`lfnlab serve log (tail):\n${service.log().slice(-4000)}`);
      throw e;
    }
  }, 540_000);
});
