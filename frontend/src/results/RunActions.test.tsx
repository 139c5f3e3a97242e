// The CSV menu offers a sample kind only to runs that can have it: the wire's flows to a run with a
// wire, UDP to a run with cross traffic; every run gets the kinds all runs have.
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { spec } from '../../test/support/fixtures';
import { renderInApp } from '../../test/support/render';
import type { Run } from '../api/types';
import { RunActions } from './RunActions';

const runOf = (s: Run['spec']): Run =>
  ({ id: 'r7', name: s.name, status: 'completed', verdict: 'valid', spec: s }) as unknown as Run;

async function csvItems(run: Run): Promise<string[]> {
  mockApi({ 'GET /api/health': { body: { influx: 'off', queue: 0 } } });
  renderInApp(<RunActions run={run} />);
  fireEvent.click(screen.getByRole('button', { name: /^CSV/ }));
  const items = await waitFor(() => {
    const found = screen.queryAllByRole('menuitem', { hidden: true });
    expect(found.length).toBeGreaterThan(0);
    return found;
  });
  return items.map((i) => i.textContent ?? '');
}

describe('the CSV menu', () => {
  it('offers a plain run the kinds every run has, and neither UDP nor the wire', async () => {
    const items = await csvItems(runOf(spec('plain')));
    expect(items).toContain('Goodput per flow (bit/s)');
    expect(items).not.toContain('UDP cross traffic');
    expect(items).not.toContain("A wire's flows as the lab saw them");
  });

  it("offers a wire's run its flows as the lab saw them", async () => {
    const s = spec('through');
    const items = await csvItems(runOf({ ...s, wire: { hosts: 'netns', ports: { a: 'eth0', b: 'eth1' } } }));
    expect(items).toContain("A wire's flows as the lab saw them");
    expect(items).not.toContain('UDP cross traffic');
  });

  it('offers a run with cross traffic its UDP samples', async () => {
    const s = spec('crossed');
    const main = s.paths.main as Run['spec']['paths'][string];
    const withCross = {
      ...s,
      paths: { main: { ...main, cross: [{ pattern: 'cbr' }] } },
    } as unknown as Run['spec'];
    expect(await csvItems(runOf(withCross))).toContain('UDP cross traffic');
  });
});
