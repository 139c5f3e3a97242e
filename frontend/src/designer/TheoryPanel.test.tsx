import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { labs } from '../../test/support/fixtures';
import { must } from '../../test/support/must';
import { renderInApp } from '../../test/support/render';
import { DesignerPage } from './DesignerPage';

// Expected figures worked out by hand from the definitions, not from the code under test:
// BDP = C·RTT/8, shown in binary units; BDP in packets = BDP / MTU (1500 B by default).
//   100 Mbit/s × 0.1 s / 8 = 1 250 000 B = 1.19 MiB;  1 250 000 / 1500 = 833.3 packets.
//   1 Gbit/s × 0.1 s / 8 = 12 500 000 B = 11.9 MiB;  12 500 000 / 1500 = 8 333 packets.
const rowText = (panel: HTMLElement, label: string) =>
  must(within(panel).getByRole('button', { name: label }).closest('tr')).textContent;

describe('theory panel in the designer', () => {
  beforeEach(() => {
    mockApi({ 'GET /api/labs': { body: labs }, 'GET /api/specs': { body: [] } });
  });

  it('shows the BDP of a 100 Mbit/s, 100 ms path in bytes and packets, and follows the rate', async () => {
    renderInApp(<DesignerPage />);
    fireEvent.change(screen.getByLabelText('Bottleneck rate'), { target: { value: '100Mbit' } });
    fireEvent.change(screen.getByLabelText('RTT'), { target: { value: '100ms' } });

    const panel = screen.getByTestId('theory-main');
    await waitFor(() => expect(panel.textContent).toContain('main: 100 Mbit/s, 100 ms RTT'));
    expect(rowText(panel, 'BDP')).toBe('BDP1.19 MiB · 833 packets');
    // The default buffer is 1 × BDP.
    expect(rowText(panel, 'Buffer')).toBe('Buffer833 packets · 1 × BDP');

    fireEvent.change(screen.getByLabelText('Bottleneck rate'), { target: { value: '1Gbit' } });
    await waitFor(() => expect(panel.textContent).toContain('main: 1 Gbit/s, 100 ms RTT'));
    expect(rowText(panel, 'BDP')).toBe('BDP11.9 MiB · 8,330 packets');
  });

  it('shows a dash, not a stale figure, while the rate cannot be read', async () => {
    renderInApp(<DesignerPage />);
    fireEvent.change(screen.getByLabelText('RTT'), { target: { value: '100ms' } });
    const panel = screen.getByTestId('theory-main');
    await waitFor(() => expect(rowText(panel, 'BDP')).toBe('BDP1.19 MiB · 833 packets'));
    fireEvent.change(screen.getByLabelText('Bottleneck rate'), { target: { value: 'fast' } });
    await waitFor(() => expect(rowText(panel, 'BDP')).toBe('BDP— · —'));
  });
});
