import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { student } from '../../test/support/fixtures';
import { renderInApp } from '../../test/support/render';
import { App } from '../app/App';
import { SessionProvider } from './session';

/** The app with no session: GET /api/auth/me is 401, so it shows the sign-in form. */
function signedOut(login: (body: unknown) => { status: number; body: unknown }) {
  const api = mockApi({
    'GET /api/auth/me': { status: 401, body: { error: 'not signed in' } },
    'POST /api/auth/login': ({ body }) => login(body),
  });
  renderInApp(
    <SessionProvider>
      <App />
    </SessionProvider>,
  );
  return api;
}

async function signIn(username: string, password: string) {
  // Labelled fields: found by their visible label, as a screen reader announces them.
  fireEvent.change(await screen.findByLabelText(/^User name/), { target: { value: username } });
  fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: password } });
  fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('LoginPage', () => {
  it('labels its fields and tells a wrong password apart', async () => {
    const { calls } = signedOut(() => ({ status: 401, body: { error: 'wrong username or password' } }));
    await signIn('ada', 'not-her-password');

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Wrong user name or password');
    expect(calls.find((c) => c.path === '/api/auth/login')?.body).toEqual({
      username: 'ada',
      password: 'not-her-password',
    });
    // Still on the form, with what was typed kept.
    expect((screen.getByLabelText(/^User name/) as HTMLInputElement).value).toBe('ada');
    expect(screen.getByLabelText(/^Password/).getAttribute('type')).toBe('password');
  });

  it("shows the server's own message for other refusals", async () => {
    signedOut(() => ({ status: 429, body: { error: 'too many failed sign-ins; wait 15 minutes' } }));
    await signIn('ada', 'guess-11');
    expect((await screen.findByRole('alert')).textContent).toBe('too many failed sign-ins; wait 15 minutes');
  });

  it('leaves the form once the service accepts the password', async () => {
    signedOut(() => ({ status: 200, body: { user: student, csrfToken: 'tok' } }));
    await signIn('ada', 'right-password');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Sign in' })).toBeNull());
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeTruthy();
  });
});
