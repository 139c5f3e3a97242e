import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { kid, me } from '../../test/support/testData';
import { SessionProvider } from '../auth/session';
import { AssignmentsPage } from './AssignmentsPage';

describe('AssignmentsPage (student)', () => {
  it('lists my class’s assignments with where I stand, and no publish form', async () => {
    mockApi({
      'GET /api/auth/me': me(kid),
      'GET /api/assignments': {
        body: [
          {
            id: 'a1',
            classId: 'c1',
            className: 'net101',
            title: 'Reverse traffic and the forward flow',
            summary: 'A forward transfer shares its path…',
            basedOn: 'seed000-table4',
            publishedAt: '2026-11-25T10:00:00Z',
            due: null,
            mine: { state: 'stuck', score: 1, maxScore: 4 },
          },
        ],
      },
    });
    renderInApp(
      <SessionProvider>
        <AssignmentsPage />
      </SessionProvider>,
    );
    const link = await screen.findByRole('link', { name: 'Reverse traffic and the forward flow' });
    expect(link.getAttribute('href')).toBe('#/classroom/assignments/a1');
    const row = screen.getByTestId('assignments');
    expect(within(row).getByText('stuck')).toBeTruthy();
    expect(within(row).getByText('1/4')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Publish a lab sheet' })).toBeNull();
  });
});
