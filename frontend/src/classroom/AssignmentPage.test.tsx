import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { grade, kid, me, teacher, view } from '../../test/support/testData';
import { SessionProvider } from '../auth/session';
import { AssignmentPage } from './AssignmentPage';

const render = () =>
  renderInApp(
    <SessionProvider>
      <AssignmentPage assignmentId="a1" />
    </SessionProvider>,
  );

describe('AssignmentPage (student)', () => {
  it('runs only after a prediction, sending the prediction and the fields as set', async () => {
    let launched = false;
    const { calls } = mockApi({
      'GET /api/auth/me': me(kid),
      // Once launched, the service reports the run as the student's last, still waiting.
      'GET /api/assignments/a1': () => ({
        body: launched
          ? view({
              grade: grade({ state: 'waiting', lastRun: { id: 'run-9', status: 'queued', verdict: null } }),
            })
          : view(),
      }),
      'POST /api/assignments/a1/runs': () => {
        launched = true;
        return { status: 202, body: { id: 'run-9', status: 'queued', submission: {} } };
      },
    });
    render();
    const run = await screen.findByRole('button', { name: 'Run the experiment' });
    expect((run as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Write your prediction first.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/Base RTT/), { target: { value: '60' } });
    fireEvent.change(screen.getByRole('textbox', { name: /Your prediction/ }), {
      target: { value: 'about 3 s' },
    });
    await waitFor(() => expect((run as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(run);
    await screen.findByText(/Run run-9 is queued/);
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({
      prediction: 'about 3 s',
      values: { 'paths.main.rtt': 60, 'flows.0.stack': 'reno' },
    });
    expect(screen.getByRole('link', { name: 'Watch it live' }).getAttribute('href')).toBe(
      '#/runs/run-9/live',
    );
  });

  it('shows the service’s problem under the field it names', async () => {
    mockApi({
      'GET /api/auth/me': me(kid),
      'GET /api/assignments/a1': { body: view() },
      'POST /api/assignments/a1/runs': {
        status: 400,
        body: {
          error: 'values.paths.main.rtt: must be a number from 10 to 80 ms',
          problems: [{ path: 'values.paths.main.rtt', message: 'must be a number from 10 to 80 ms' }],
        },
      },
    });
    render();
    fireEvent.change(await screen.findByRole('textbox', { name: /Your prediction/ }), {
      target: { value: 'x' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Run the experiment' }));
    const error = await screen.findByText('must be a number from 10 to 80 ms');
    const input = screen.getByLabelText(/Base RTT/);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toContain(error.id);
  });

  it('names each checkpoint’s outcome in words, with the numbers compared, and the score', async () => {
    mockApi({
      'GET /api/auth/me': me(kid),
      'GET /api/assignments/a1': { body: view({ grade: grade() }) },
    });
    render();
    expect((await screen.findByTestId('score')).textContent).toBe('1 of 3 points');
    expect(screen.getByText('passed')).toBeTruthy();
    expect(screen.getByText('not measurable')).toBeTruthy();
    expect(screen.getByTestId('checkpoint-link-busy-detail').textContent).toBe('0.83 >= 0.6');
  });

  it('saves answers to the questions', async () => {
    const { calls } = mockApi({
      'GET /api/auth/me': me(kid),
      'GET /api/assignments/a1': { body: view() },
      'PUT /api/assignments/a1/answers': {
        body: { answers: { measured: '2 s' }, answeredAt: '2026-11-25T10:05:00Z' },
      },
    });
    render();
    fireEvent.change(await screen.findByRole('textbox', { name: /What did the run measure/ }), {
      target: { value: '2 s' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save answers' }));
    await screen.findByText(/^Saved at/);
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ answers: { measured: '2 s' } });
  });
});

describe('AssignmentPage (instructor)', () => {
  it('previews the sheet without a run step, linking the class table', async () => {
    mockApi({ 'GET /api/auth/me': me(teacher), 'GET /api/assignments/a1': { body: view({ grade: null }) } });
    render();
    expect((await screen.findByRole('link', { name: 'Class table' })).getAttribute('href')).toBe(
      '#/classroom/assignments/a1/table',
    );
    expect(screen.queryByRole('button', { name: 'Run the experiment' })).toBeNull();
  });
});
