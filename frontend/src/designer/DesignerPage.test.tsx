import { registerStacks, SpecSchema } from '@lfnlab/emulator/spec';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { labs } from '../../test/support/fixtures';
import { must } from '../../test/support/must';
import { renderInApp } from '../../test/support/render';
import { DesignerPage } from './DesignerPage';

/** The message the shared schema itself gives for an RTT, independent of the form's resolver. */
function schemaMessageForRtt(rtt: string): string {
  const r = SpecSchema.safeParse({
    name: 'x',
    duration: '30s',
    paths: { main: { rtt, rate: '100Mbit', buffer: '1bdp' } },
    flows: [{ stack: 'reno' }],
  });
  const issue = r.success ? undefined : r.error.issues.find((i) => i.path.join('.') === 'paths.main.rtt');
  if (!issue) throw new Error(`the schema accepted rtt ${rtt}`);
  return issue.message;
}

/** The element an input's aria-describedby names that holds `text`, if any. */
function describedBy(input: HTMLElement, text: string): HTMLElement | undefined {
  const ids = (input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
  return ids
    .map((id) => document.getElementById(id))
    .find((el): el is HTMLElement => el?.textContent === text);
}

describe('DesignerPage', () => {
  beforeEach(() => {
    mockApi({ 'GET /api/labs': { body: labs }, 'GET /api/specs': { body: [] } });
  });

  it('shows the schema message for an out-of-range RTT next to the RTT input, and clears it when fixed', async () => {
    renderInApp(<DesignerPage />);
    const rtt = screen.getByLabelText('RTT');
    const rate = screen.getByLabelText('Bottleneck rate');
    await screen.findByText('Spec is valid');

    const message = schemaMessageForRtt('99999ms');
    expect(message).toMatch(/between .* \(got '99999ms'\)/);
    fireEvent.change(rtt, { target: { value: '99999ms' } });

    await waitFor(() => expect(rtt.getAttribute('aria-invalid')).toBe('true'));
    const error = describedBy(rtt, message);
    expect(error, `an element described by the RTT input reads "${message}"`).toBeDefined();
    // In the RTT field's own wrapper, not under another field.
    expect(rtt.closest('.mantine-InputWrapper-root')?.contains(error ?? null)).toBe(true);
    expect(rate.getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.getByRole('status').textContent).toBe('1 problem to fix');
    expect(screen.getByRole('button', { name: 'Launch run' })).toHaveProperty('disabled', true);

    fireEvent.change(rtt, { target: { value: '80ms' } });
    await waitFor(() => expect(rtt.getAttribute('aria-invalid')).not.toBe('true'));
    expect(screen.queryByText(message)).toBeNull();
    expect(describedBy(rtt, message)).toBeUndefined();
    expect(screen.getByRole('status').textContent).toBe('Spec is valid');
    expect(screen.getByRole('button', { name: 'Launch run' })).toHaveProperty('disabled', false);
  });

  it('puts the lab in the wire: its ports appear, a port error shows at its field, the sketch says so', async () => {
    renderInApp(<DesignerPage />);
    await screen.findByText('Spec is valid');
    expect(screen.queryByLabelText("Port b (receiver's side)")).toBeNull();
    fireEvent.click(screen.getByRole('switch', { name: /^The lab as a bump in the wire/ }));
    const b = await screen.findByLabelText("Port b (receiver's side)");
    expect((screen.getByLabelText("Port a (sender's side)") as HTMLInputElement).value).toBe('eth0');
    await screen.findByText('Spec is valid');
    expect(
      screen.getByRole('img', { name: /^Bump in the wire: the lab between ports eth0 and eth1/ }),
    ).toBeTruthy();
    fireEvent.change(b, { target: { value: 'eth0' } });
    await waitFor(() => expect(b.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(b, 'a and b must be two different ports')).toBeDefined();
    expect(screen.getByRole('button', { name: 'Launch run' })).toHaveProperty('disabled', true);
  });

  it("sets a stack's module parameter: folded until asked, the schema's range at the field, launched with it", async () => {
    const { calls } = mockApi({
      'GET /api/labs': { body: labs },
      'GET /api/specs': { body: [] },
      'POST /api/runs': { status: 201, body: { id: 'r1' } },
    });
    renderInApp(<DesignerPage />);
    await screen.findByText('Spec is valid');
    // The default flows are Reno (no parameters) and CUBIC (some).
    expect(screen.queryByLabelText('cubic beta')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Show (cubic)' }));
    const beta = (await screen.findByLabelText('cubic beta')) as HTMLInputElement;
    expect(beta.placeholder).toBe("module's own: 717");
    fireEvent.change(beta, { target: { value: '2000' } });
    await waitFor(() => expect(beta.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(beta, 'must be a whole number from 1 to 1023 (ratio; default 717)')).toBeDefined();
    expect(screen.getByRole('button', { name: 'Hide' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('status').textContent).toBe('1 problem to fix');
    fireEvent.change(beta, { target: { value: '820' } });
    await screen.findByText('Spec is valid');
    fireEvent.click(screen.getByRole('button', { name: 'Launch run' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/api/runs')).toBe(true));
    const sent = calls.find((c) => c.path === '/api/runs')?.body as { text: string };
    expect(sent.text).toMatch(/^stackParams:\n {2}cubic:\n {4}beta: 820$/m);
  });

  it("offers the stacks the lab reported, not the schema's full list", async () => {
    renderInApp(<DesignerPage />);
    const stack = screen.getByRole('combobox', { name: 'Flow 1 stack' });
    fireEvent.click(stack);
    await waitFor(() => expect(stack.getAttribute('aria-expanded')).toBe('true'));
    // The dropdown's options (still mid-transition in happy-dom, hence hidden: true).
    const offered = () =>
      within(must(document.getElementById(must(stack.getAttribute('aria-controls')))))
        .queryAllByRole('option', { hidden: true })
        .map((o) => o.textContent);
    // Until the lab answers, the designer falls back to the schema's list (which has bbr).
    await waitFor(() => expect(offered()).toEqual(labs[0]?.stacks));
    expect(offered()).not.toContain('bbr');
  });

  describe('with a stack the lab operator added', () => {
    afterEach(() => registerStacks([]));

    /** Opens flow 1's stack list and picks `name` from the options the designer offers. */
    async function pickForFlow1(name: string) {
      const stack = screen.getByRole('combobox', { name: 'Flow 1 stack' });
      fireEvent.click(stack);
      await waitFor(() => expect(stack.getAttribute('aria-expanded')).toBe('true'));
      const list = must(document.getElementById(must(stack.getAttribute('aria-controls'))));
      const option = await waitFor(() =>
        must(
          within(list)
            .queryAllByRole('option', { hidden: true })
            .find((o) => o.textContent === name),
        ),
      );
      fireEvent.click(option);
      await waitFor(() => expect((stack as HTMLInputElement).value).toBe(name));
    }

    it('offers it and the shared schema accepts it', async () => {
      const lab = { ...must(labs[0]), stacks: [...must(labs[0]).stacks, 'lfnvendor'] };
      mockApi({ 'GET /api/labs': { body: [lab] }, 'GET /api/specs': { body: [] } });
      renderInApp(<DesignerPage />);
      await pickForFlow1('lfnvendor');
      await screen.findByText('Spec is valid');
      expect(screen.getByRole('button', { name: 'Launch run' })).toHaveProperty('disabled', false);
    });

    it("knows it from the service's stack list while every lab is down, as the API does", async () => {
      const down = { ...must(labs[0]), state: 'down', stacks: [] };
      const listed = [
        ...must(labs[0]).stacks.map((name) => ({ name, origin: 'mainline', family: 'loss' })),
        {
          name: 'lfnvendor',
          origin: 'added',
          family: 'loss',
          params: [{ name: 'beta_pct', type: 'int', default: 50, description: 'share kept on a loss' }],
        },
      ];
      mockApi({
        'GET /api/labs': { body: [down] },
        'GET /api/stacks': { body: listed },
        'GET /api/specs': { body: [] },
      });
      renderInApp(<DesignerPage />);
      await pickForFlow1('lfnvendor');
      await screen.findByText('Spec is valid');
      // Its own module parameter, from the same list, can be set like the lab's own stacks'.
      fireEvent.click(screen.getByRole('button', { name: /^Show \(.*lfnvendor.*\)$/ }));
      const beta = (await screen.findByLabelText('lfnvendor beta_pct')) as HTMLInputElement;
      expect(beta.placeholder).toBe("module's own: 50");
      fireEvent.change(beta, { target: { value: '70' } });
      await screen.findByText('Spec is valid');
    });
  });
});
