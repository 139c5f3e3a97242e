import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { me } from '../../test/support/testData';
import { SessionProvider } from '../auth/session';
import { AdminPage } from './AdminPage';

describe('AdminPage', () => {
  it("offers only existing classes for a new user, so a typo cannot name one (issue 17: 'class' was free text)", async () => {
    const admin = { id: 'u-adm', username: 'admin', role: 'admin' as const, class: null };
    const { calls } = mockApi({
      'GET /api/auth/me': me(admin),
      'GET /api/users': { body: [admin] },
      'GET /api/quotas': { body: {} },
      'GET /api/classes': {
        body: [
          {
            id: 'c1',
            name: 'net101',
            instructors: [],
            students: 0,
            quota: null,
            createdAt: '2026-11-25T10:00:00Z',
          },
        ],
      },
      'POST /api/users': {
        status: 201,
        body: { id: 'u-ada', username: 'ada', role: 'student', class: 'net101' },
      },
    });
    renderInApp(
      <SessionProvider>
        <AdminPage />
      </SessionProvider>,
    );
    const form = within(await screen.findByRole('form', { name: 'New user' }));
    const cls = form.getByLabelText('Class') as HTMLInputElement;
    expect(cls.hasAttribute('readonly')).toBe(true); // a select, not a free-text field
    fireEvent.click(cls);
    fireEvent.click(await screen.findByRole('option', { name: 'net101', hidden: true }));
    fireEvent.change(form.getByRole('textbox', { name: 'User name' }), { target: { value: 'ada' } });
    fireEvent.change(
      document.querySelector('form[aria-label="New user"] input[type="password"]') as Element,
      { target: { value: 'correct horse battery staple' } },
    );
    fireEvent.click(form.getByRole('button', { name: 'Add user' }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ class: 'net101' }),
    );
  });
});
