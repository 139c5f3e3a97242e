// One bad spec through all three front doors, for real: the `lfnlab validate` binary, the API the
// page calls, and the designer in Chromium (the file imported as a person would) name the same
// fields — flows.1.stack and paths.main.rtt — with the same messages, the designer next to the
// form field each path maps to.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Service, shot, startService } from './harness';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const BAD_SPEC = `name: bad
duration: 10s
paths:
  main: { rtt: 9000ms, rate: 20Mbit }
flows:
  - { stack: reno }
  - { stack: tahoe }
`;

interface Problem {
  path: string;
  message: string;
}

let service: Service;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  service = await startService('fake');
  browser = await launchBrowser();
  dir = mkdtempSync(join(tmpdir(), 'lfn-e2e-problems-'));
});
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The text of the elements an input's aria-describedby names (where Mantine puts its error). */
const describedText = (input: Locator) =>
  input.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join('\n'),
  );

async function signIn(page: Page) {
  await page.goto(service.url);
  await page.getByLabel('User name').fill(service.username);
  await page.locator('input[type="password"]').fill(service.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Experiment designer' }).waitFor();
}

describe('one bad spec, three front doors', () => {
  it('the CLI, the API and the designer name flows.1.stack and paths.main.rtt alike', async () => {
    // The CLI: one "  path: message" line per problem.
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, BAD_SPEC);
    const cli = spawnSync(process.execPath, [join(repo, 'backend/bin/lfnlab.js'), 'validate', file], {
      encoding: 'utf8',
    });
    expect(cli.status).toBe(2);
    const fromCli: Problem[] = [...cli.stderr.matchAll(/^ {2}(\S+): (.*)$/gm)].map((m) => ({
      path: m[1] as string,
      message: m[2] as string,
    }));
    expect(fromCli.map((p) => p.path).sort()).toEqual(['flows.1.stack', 'paths.main.rtt']);

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signIn(page);

    // The API, called from the signed-in page as the UI calls it.
    const fromApi = await page.evaluate(async (text) => {
      const me = (await (await fetch('/api/auth/me')).json()) as { csrfToken: string };
      const r = await fetch('/api/specs/validate', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrfToken },
        body: JSON.stringify({ text }),
      });
      return (await r.json()) as { ok: boolean; problems: { path: string; message: string }[] };
    }, BAD_SPEC);
    expect(fromApi.ok).toBe(false);
    expect([...fromApi.problems].sort((a, b) => a.path.localeCompare(b.path))).toEqual(
      [...fromCli].sort((a, b) => a.path.localeCompare(b.path)),
    );

    // The designer: the same file imported; each message next to the field its path maps to.
    await page.locator('input[type="file"]').setInputFiles({
      name: 'bad.yaml',
      mimeType: 'text/yaml',
      buffer: Buffer.from(BAD_SPEC),
    });
    const rtt = page.getByLabel('RTT', { exact: true });
    const stack = page.getByRole('combobox', { name: 'Flow 2 stack', exact: true });
    await expect.poll(() => rtt.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => stack.getAttribute('aria-invalid')).toBe('true');
    const message = (path: string) => fromCli.find((p) => p.path === path)?.message as string;
    // The stack message lists every stack the service knows, added ones too, once the designer has
    // the service's list (GET /api/stacks), whether or not a lab is up.
    await expect.poll(() => describedText(rtt)).toContain(message('paths.main.rtt'));
    await expect.poll(() => describedText(stack)).toContain(message('flows.1.stack'));
    expect(
      await page.getByRole('combobox', { name: 'Flow 1 stack', exact: true }).getAttribute('aria-invalid'),
    ).not.toBe('true');
    expect(await page.getByRole('status').filter({ hasText: 'to fix' }).textContent()).toBe(
      '2 problems to fix',
    );
    await shot(page, 'spec-problems', 'designer-1440');
    await context.close();
  });
});
