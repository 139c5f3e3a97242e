import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { sheet } from '../../test/support/testData';
import { PublishForm } from './PublishForm';

const classes = [
  { id: 'c1', name: 'net101', instructors: [], students: 30, quota: null, createdAt: '2026-11-25T10:00:00Z' },
];

async function choose(label: string, option: string) {
  const box = screen.getByRole('combobox', { name: label });
  fireEvent.click(box);
  await waitFor(() => expect(box.getAttribute('aria-expanded')).toBe('true'));
  fireEvent.click(await screen.findByRole('option', { name: option, hidden: true }));
}

describe('PublishForm', () => {
  it('publishes a shipped sheet by id, with its due time', async () => {
    const { calls } = mockApi({
      'GET /api/classes': { body: classes },
      'GET /api/sheets': { body: [sheet] },
      'POST /api/assignments': {
        status: 201,
        body: { id: 'a1', className: 'net101', sheet },
      },
    });
    renderInApp(<PublishForm />);
    await screen.findByRole('combobox', { name: 'Class' });
    await choose('Class', 'net101 (30 students)');
    await choose('Sheet', sheet.title);
    fireEvent.change(screen.getByLabelText('Due (optional)'), { target: { value: '2026-12-01T14:00' } });
    fireEvent.click(screen.getByRole('button', { name: 'Publish' }));
    expect((await screen.findByRole('link', { name: 'Open its class table' })).getAttribute('href')).toBe(
      '#/classroom/assignments/a1/table',
    );
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      classId: 'c1',
      sheetId: sheet.id,
      due: new Date('2026-12-01T14:00').toISOString(),
    });
  });

  it('publishes a customised sheet as an object and lists the problems the service names', async () => {
    const { calls } = mockApi({
      'GET /api/classes': { body: classes },
      'GET /api/sheets': { body: [sheet] },
      'GET /api/sheets/checkpoint-language': {
        body: {
          functions: [{ name: 'jain', args: '[path], [direction]', doc: "Jain's index" }],
          names: [{ name: 'mss', doc: 'segment size' }],
          operators: ['and or not'],
          examples: ['jain() >= 0.9'],
        },
      },
      'POST /api/assignments': {
        status: 400,
        body: {
          error: 'invalid body',
          problems: [{ path: 'sheet.checkpoints.0.check', message: 'at character 6: unexpected "$"' }],
        },
      },
    });
    renderInApp(<PublishForm />);
    await screen.findByRole('combobox', { name: 'Class' });
    await choose('Class', 'net101 (30 students)');
    await choose('Sheet', sheet.title);
    fireEvent.click(screen.getByRole('switch', { name: /Customise the sheet/ }));
    const yaml = await screen.findByRole('textbox', { name: /Sheet \(YAML\)/ });
    expect((yaml as HTMLTextAreaElement).value).toContain('check: utilisation() >= 0.6');
    fireEvent.change(yaml, {
      target: { value: (yaml as HTMLTextAreaElement).value.replace('utilisation() >= 0.6', 'jain() $ 1') },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Publish' }));
    // The language reference sits beside the editor.
    expect((await screen.findByTestId('checkpoint-reference')).textContent).toContain(
      'jain([path], [direction])',
    );
    const problems = await screen.findByTestId('publish-problems');
    expect(problems.textContent).toBe('sheet.checkpoints.0.check: at character 6: unexpected "$"');
    const body = calls.find((c) => c.method === 'POST')?.body as {
      sheet: { checkpoints: { check: string }[] };
    };
    expect(body.sheet.checkpoints[0]?.check).toBe('jain() $ 1');
  });

  it('says what is wrong with YAML that does not parse, without calling the service', async () => {
    const { calls } = mockApi({
      'GET /api/classes': { body: classes },
      'GET /api/sheets': { body: [sheet] },
    });
    renderInApp(<PublishForm />);
    await screen.findByRole('combobox', { name: 'Class' });
    await choose('Class', 'net101 (30 students)');
    await choose('Sheet', sheet.title);
    fireEvent.click(screen.getByRole('switch', { name: /Customise the sheet/ }));
    fireEvent.change(await screen.findByRole('textbox', { name: /Sheet \(YAML\)/ }), {
      target: { value: 'id: [unclosed' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Publish' }));
    await screen.findByText(/^not valid YAML/);
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });
});
