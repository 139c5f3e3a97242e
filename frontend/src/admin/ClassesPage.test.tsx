import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { ClassesPage } from './ClassesPage';

describe('ClassesPage', () => {
  it('lists classes with their quota and opens a new class once made', async () => {
    const { calls } = mockApi({
      'GET /api/classes': {
        body: [
          {
            id: 'c1',
            name: 'net101',
            instructors: [{ id: 't', username: 'teach' }],
            students: 30,
            quota: { concurrentRuns: 1, maxDurationS: 90, maxRateMbps: 50, maxFlows: 4 },
            createdAt: '2026-11-25T10:00:00Z',
          },
        ],
      },
      'POST /api/classes': { status: 201, body: { id: 'c2', name: 'net202' } },
    });
    renderInApp(<ClassesPage />);
    expect((await screen.findByRole('link', { name: 'net101' })).getAttribute('href')).toBe(
      '#/classroom/classes/c1',
    );
    expect(screen.getByText('1 at a time, ≤ 90 s, ≤ 50 Mbit/s, ≤ 4 flows')).toBeTruthy();
    fireEvent.change(screen.getByRole('textbox', { name: /New class/ }), { target: { value: ' net202 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create class' }));
    await waitFor(() => expect(window.location.hash).toBe('#/classroom/classes/c2'));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'net202' });
  });

  it('shows why a name was refused, on the field', async () => {
    mockApi({
      'GET /api/classes': { body: [] },
      'POST /api/classes': {
        status: 409,
        body: { error: 'class net101 already exists', problems: [{ path: 'name', message: 'is taken' }] },
      },
    });
    renderInApp(<ClassesPage />);
    const name = await screen.findByRole('textbox', { name: /New class/ });
    fireEvent.change(name, { target: { value: 'net101' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create class' }));
    await screen.findByText('class net101 already exists');
    expect(name.getAttribute('aria-invalid')).toBe('true');
  });
});
