// Designer defects from issue 17: Back from the live page reset the form, "Saved as" never showed
// (the save's navigation remounted the page), and quotas were only checked at launch, printed twice
// beside a green "Spec is valid".
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { labs, student } from '../../test/support/fixtures';
import { renderInApp } from '../../test/support/render';
import { SessionProvider } from '../auth/session';
import { DesignerPage } from './DesignerPage';

const quotas = {
  student: { concurrentRuns: 1, maxDurationS: 120, maxRateMbps: 100, maxFlows: 4 },
  instructor: { concurrentRuns: 4, maxDurationS: 3600, maxRateMbps: 1000, maxFlows: 16 },
  admin: { concurrentRuns: 100, maxDurationS: 86400, maxRateMbps: 10000, maxFlows: 64 },
};

describe('designer defects', () => {
  it('keeps what was typed when the person leaves (Launch → live → Back) and returns', async () => {
    mockApi({ 'GET /api/labs': { body: labs }, 'GET /api/specs': { body: [] } });
    const first = renderInApp(<DesignerPage />);
    await screen.findByText('Spec is valid');
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'my-bufferbloat-test' } });
    await waitFor(() =>
      expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('my-bufferbloat-test'),
    );
    first.unmount();
    renderInApp(<DesignerPage />);
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('my-bufferbloat-test');
  });

  it('shows "Saved as …" after saving a new spec, although the save moves to the spec’s address', async () => {
    mockApi({
      'GET /api/labs': { body: labs },
      'GET /api/specs': { body: [] },
      'POST /api/specs': ({ body }) => ({
        status: 201,
        body: { id: 's1', name: (body as { name: string }).name, kind: 'spec', text: '', owner: 'ada' },
      }),
      'GET /api/specs/s1': { status: 500, body: { error: 'not expected: the working copy is used' } },
    });
    const first = renderInApp(<DesignerPage />);
    await screen.findByText('Spec is valid');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(window.location.hash).toBe('#/designer?spec=s1'));
    // The app renders the page again under the new spec id (App keys DesignerPage by it).
    first.unmount();
    renderInApp(<DesignerPage specId="s1" />);
    expect(await screen.findByText(/Saved as "/)).toBeTruthy();
  });

  it('checks the quota as the person types: one message, and no green "Spec is valid"', async () => {
    mockApi({
      'GET /api/labs': { body: labs },
      'GET /api/specs': { body: [] },
      'GET /api/auth/me': { body: { user: student, csrfToken: 't' } },
      'GET /api/quotas': { body: quotas },
    });
    renderInApp(
      <SessionProvider>
        <DesignerPage />
      </SessionProvider>,
    );
    await screen.findByText('Spec is valid');
    fireEvent.change(screen.getByLabelText('Duration'), { target: { value: '10min' } });
    const box = await screen.findByTestId('quota-problems');
    expect(within(box).getAllByText(/above the student quota of 120 s/)).toHaveLength(1);
    expect(screen.queryByText('Spec is valid')).toBeNull();
    expect(screen.getByRole('status').textContent).toBe('1 problem to fix');
    expect(screen.getByRole('button', { name: 'Launch run' })).toHaveProperty('disabled', true);
  });
});
