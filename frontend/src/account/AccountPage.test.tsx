import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { kid, me } from '../../test/support/testData';
import { SessionProvider } from '../auth/session';
import { AccountPage } from './AccountPage';

const render = () =>
  renderInApp(
    <SessionProvider>
      <AccountPage />
    </SessionProvider>,
  );

describe('AccountPage', () => {
  it('changes the password only when both new entries match, giving the current one', async () => {
    const { calls } = mockApi({
      'GET /api/auth/me': me(kid),
      'GET /api/tokens': { body: [] },
      'PATCH /api/users/u-kid': { body: kid },
    });
    render();
    fireEvent.change(await screen.findByLabelText(/^Current password/), { target: { value: 'old-one-123' } });
    fireEvent.change(screen.getByLabelText(/^New password$|^New password \*/), {
      target: { value: 'new-one-4567' },
    });
    fireEvent.change(screen.getByLabelText(/^New password again/), { target: { value: 'new-one-456' } });
    expect(screen.getByText('does not match the new password')).toBeTruthy();
    const submit = screen.getByRole('button', { name: 'Change password' });
    expect((submit as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText(/^New password again/), { target: { value: 'new-one-4567' } });
    fireEvent.click(submit);
    await screen.findByText(/Password changed/);
    expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({
      currentPassword: 'old-one-123',
      password: 'new-one-4567',
    });
  });

  it('a wrong current password is marked on that field', async () => {
    mockApi({
      'GET /api/auth/me': me(kid),
      'GET /api/tokens': { body: [] },
      'PATCH /api/users/u-kid': {
        status: 403,
        body: {
          error: 'x',
          problems: [{ path: 'currentPassword', message: 'must be your current password' }],
        },
      },
    });
    render();
    const current = await screen.findByLabelText(/^Current password/);
    fireEvent.change(current, { target: { value: 'wrong-pass-1' } });
    fireEvent.change(screen.getByLabelText(/^New password$|^New password \*/), {
      target: { value: 'new-one-4567' },
    });
    fireEvent.change(screen.getByLabelText(/^New password again/), { target: { value: 'new-one-4567' } });
    fireEvent.click(screen.getByRole('button', { name: 'Change password' }));
    const error = await screen.findByText('must be your current password');
    expect(current.getAttribute('aria-describedby')).toBe(error.id);
    expect(current.getAttribute('data-invalid')).toBe('true');
  });

  it('makes a token, showing its secret once, and lists and revokes tokens', async () => {
    let tokens = [{ id: 't1', name: 'old', createdAt: '2026-11-01T10:00:00Z', lastUsedAt: null }];
    const { calls } = mockApi({
      'GET /api/auth/me': me(kid),
      'GET /api/tokens': () => ({ body: tokens }),
      'POST /api/tokens': () => {
        tokens = [
          ...tokens,
          { id: 't2', name: 'script', createdAt: '2026-11-25T10:00:00Z', lastUsedAt: null },
        ];
        return { status: 201, body: { id: 't2', name: 'script', token: 'lfn_secret123' } };
      },
      'DELETE /api/tokens/t1': () => {
        tokens = tokens.filter((t) => t.id !== 't1');
        return { body: { ok: true } };
      },
    });
    render();
    await screen.findByText('old');
    fireEvent.change(screen.getByRole('textbox', { name: /Name/ }), { target: { value: 'script' } });
    fireEvent.click(screen.getByRole('button', { name: 'New token' }));
    expect((await screen.findByTestId('new-token')).textContent).toBe('lfn_secret123');
    await screen.findByText('script');
    fireEvent.click(screen.getByRole('button', { name: 'Revoke token old' }));
    await waitFor(() => expect(screen.queryByText('old')).toBeNull());
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/tokens/t1')).toBe(true);
  });
});
