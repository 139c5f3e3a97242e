import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { row, view } from '../../test/support/testData';
import { ClassTablePage } from './ClassTablePage';

const rows = [
  row('ann', {}),
  row('bob', {
    state: 'stuck',
    stuckReason: 'last run r7 is invalid',
    runs: 2,
    invalidRuns: 1,
    lastRun: { id: 'r7', status: 'completed', verdict: 'invalid' },
    score: 0,
  }),
  row('cy', { state: 'not started', runs: 0, lastRun: null, gradedRun: null, score: 0 }),
];

describe('ClassTablePage', () => {
  it('counts students by state, shows who is stuck and why, grades, and the CSV export', async () => {
    mockApi({ 'GET /api/assignments/a1/table': { body: { assignment: view().assignment, rows } } });
    renderInApp(<ClassTablePage assignmentId="a1" />);
    const counts = await screen.findByTestId('table-counts');
    expect(counts.textContent).toContain('3 students');
    expect(counts.textContent).toContain('1 stuck');
    expect(counts.textContent).toContain('1 invalid runs');
    const bob = screen.getByTestId('row-bob');
    expect(within(bob).getByText('last run r7 is invalid')).toBeTruthy();
    expect(within(bob).getByText('2 (1 invalid)')).toBeTruthy();
    expect(screen.getByTestId('grade-ann').textContent).toBe('1/3');
    expect(within(screen.getByTestId('row-ann')).getByText('pass')).toBeTruthy();
    expect(within(screen.getByTestId('row-ann')).getByText('n/a')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe(
      '/api/assignments/a1/table/csv',
    );
  });

  it('shows a student’s prediction, answers and checkpoint numbers on request', async () => {
    const withWork = [{ ...row('ann', {}), prediction: 'about 3 s', answers: { measured: 'it took 2.8 s' } }];
    mockApi({ 'GET /api/assignments/a1/table': { body: { assignment: view().assignment, rows: withWork } } });
    renderInApp(<ClassTablePage assignmentId="a1" />);
    const toggle = await screen.findByRole('button', { name: 'Show the work of ann' });
    expect(screen.queryByTestId('details-ann')).toBeNull();
    fireEvent.click(toggle);
    const details = await screen.findByTestId('details-ann');
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(details.textContent).toContain('Prediction: about 3 s');
    expect(details.textContent).toContain('1. What did the run measure? it took 2.8 s');
    expect(details.textContent).toContain('link-busy: pass — 0.83 >= 0.6');
  });

  it('filters to one state', async () => {
    mockApi({ 'GET /api/assignments/a1/table': { body: { assignment: view().assignment, rows } } });
    renderInApp(<ClassTablePage assignmentId="a1" />);
    await screen.findByTestId('row-ann');
    const show = screen.getByRole('combobox', { name: 'Show' });
    fireEvent.click(show);
    await waitFor(() => expect(show.getAttribute('aria-expanded')).toBe('true'));
    fireEvent.click(await screen.findByRole('option', { name: 'stuck', hidden: true }));
    await waitFor(() => expect(screen.queryByTestId('row-ann')).toBeNull());
    expect(screen.queryByTestId('row-ann')).toBeNull();
    expect(screen.getByTestId('row-bob')).toBeTruthy();
  });
});
