import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { me, teacher } from '../../test/support/testData';
import { SessionProvider } from '../auth/session';
import type { ClassDetail } from '../classroom/api';
import { ClassPage } from './ClassPage';

const quota = { concurrentRuns: 1, maxDurationS: 120, maxRateMbps: 100, maxFlows: 4 };
const cls: ClassDetail = {
  id: 'c1',
  name: 'net101',
  instructors: [{ id: 'u-t', username: 'teach' }],
  students: 1,
  quota: null,
  createdAt: '2026-11-25T10:00:00Z',
  roster: [{ id: 'u-ada', username: 'ada', display: 'Ada L' }],
  roleQuota: quota,
};

describe('ClassPage', () => {
  it('imports a CSV list and shows the printable sign-in sheet with the generated passwords', async () => {
    const { calls } = mockApi({
      'GET /api/auth/me': me(teacher),
      'GET /api/classes/c1': { body: cls },
      'POST /api/classes/c1/students': {
        status: 201,
        body: {
          className: 'net101',
          created: [{ id: 'u-bo', username: 'bo', display: 'Bo B', password: 'abcd-efgh-jkmn' }],
        },
      },
    });
    renderInApp(
      <SessionProvider>
        <ClassPage classId="c1" />
      </SessionProvider>,
    );
    fireEvent.change(await screen.findByRole('textbox', { name: /Class list/ }), {
      target: { value: 'username,display\nbo,Bo B' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Import and make passwords' }));
    const sheet = await screen.findByTestId('sign-in-sheet');
    expect(sheet.textContent).toContain('Sign in at http://');
    expect(screen.getByTestId('password-bo').textContent).toBe('abcd-efgh-jkmn');
    expect(screen.getByRole('button', { name: 'Print' })).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ csv: 'username,display\nbo,Bo B' });
  });

  it('shows every bad line the service names under the list', async () => {
    mockApi({
      'GET /api/auth/me': me(teacher),
      'GET /api/classes/c1': { body: cls },
      'POST /api/classes/c1/students': {
        status: 400,
        body: {
          error: 'bad',
          problems: [
            { path: 'csv', message: 'line 2: username "b c" must be 2-32 letters' },
            { path: 'csv', message: 'line 3: username ann is also on line 1' },
          ],
        },
      },
    });
    renderInApp(
      <SessionProvider>
        <ClassPage classId="c1" />
      </SessionProvider>,
    );
    const list = await screen.findByRole('textbox', { name: /Class list/ });
    fireEvent.change(list, { target: { value: 'ann\nb c\nann' } });
    fireEvent.click(screen.getByRole('button', { name: 'Import and make passwords' }));
    await waitFor(() => expect(list.getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByText(/line 2: username "b c"/).textContent).toContain(
      'line 3: username ann is also on line 1',
    );
  });

  it('a quota above the admin’s is marked on its field', async () => {
    mockApi({
      'GET /api/auth/me': me(teacher),
      'GET /api/classes/c1': { body: cls },
      'PATCH /api/classes/c1': {
        status: 400,
        body: {
          error: 'x',
          problems: [
            { path: 'quota.maxDurationS', message: "must be at most 120 s (the admin's student quota)" },
          ],
        },
      },
    });
    renderInApp(
      <SessionProvider>
        <ClassPage classId="c1" />
      </SessionProvider>,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Save quota' }));
    await screen.findByText("must be at most 120 s (the admin's student quota)");
    expect(screen.getByRole('textbox', { name: /Longest run/ }).getAttribute('aria-invalid')).toBe('true');
    // Instructors do not name instructors.
    expect(screen.queryByRole('button', { name: 'Save instructors' })).toBeNull();
  });

  it('an admin names the instructors; an instructor does not see that panel', async () => {
    const admin = { id: 'u-adm', username: 'admin', role: 'admin' as const, class: null };
    const { calls } = mockApi({
      'GET /api/auth/me': me(admin),
      'GET /api/classes/c1': { body: cls },
      'GET /api/users': {
        body: [
          admin,
          { id: 'u-t', username: 'teach', role: 'instructor', class: null },
          { id: 'u-t2', username: 'tutor', role: 'instructor', class: null },
        ],
      },
      'PATCH /api/classes/c1': { body: cls },
    });
    renderInApp(
      <SessionProvider>
        <ClassPage classId="c1" />
      </SessionProvider>,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Save instructors' }));
    await screen.findByText('Saved.');
    expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ instructors: ['u-t'] });
  });
});
