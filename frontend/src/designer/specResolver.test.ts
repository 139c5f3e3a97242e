import { checkSpecText, parseDocument } from '@lfnlab/emulator/spec';
import { describe, expect, it } from 'vitest';
import { must } from '../../test/support/must';
import { errorAt } from './fieldError';
import { defaultSpecForm, specInputToForm } from './formModel';
import { checkSpecForm, formFieldOf, issuesToErrors } from './specResolver';

/** The bad spec backend/src/server/specProblems.test.ts gives the CLI and the API. */
const BAD_SPEC = `name: bad
duration: 10s
paths:
  main: { rtt: 9000ms, rate: 20Mbit }
flows:
  - { stack: reno }
  - { stack: tahoe }
`;

describe('spec resolver', () => {
  it('files schema problems under the form field they name', () => {
    const f = defaultSpecForm();
    f.paths[0] = { ...must(f.paths[0]), rtt: '70', rate: '100MB' };
    f.flows[1] = { ...must(f.flows[1]), stack: 'nosuch', start: '40s' };
    const r = checkSpecForm(f);
    expect(r.ok).toBe(false);
    const errors = issuesToErrors(r.issues);
    expect(errorAt(errors, 'paths.0.rtt')).toMatch(/needs a unit/);
    expect(errorAt(errors, 'paths.0.rate')).toMatch(/in bytes; write bits/);
    expect(errorAt(errors, 'flows.1.stack')).toMatch(/unknown stack "nosuch"/);
  });

  it("files a stack parameter's problem under its field, and one the section has no field for at the top", () => {
    const f = defaultSpecForm();
    f.flows[1] = { ...must(f.flows[1]), stack: 'fast' };
    f.stackParams = { fast: { alpha: '-1', nosuch: '1' }, tahoe: { x: '1' } };
    const r = checkSpecForm(f);
    const errors = issuesToErrors(r.issues);
    expect(errorAt(errors, 'stackParams.fast.alpha')).toMatch(
      /^must be a whole number from \d+ to \d+ \(packets; default/,
    );
    expect(errorAt(errors, 'stackParams.fast.nosuch')).toMatch(
      /^fast has no parameter 'nosuch'; settable: alpha/,
    );
    // An unknown stack has no field: the problem goes to the list above the form.
    expect(r.issues.find((i) => i.path === 'stackParams.tahoe')?.formField).toBeNull();
    expect(formFieldOf('stackParams.fast.beta', f)).toBeNull();
  });

  it("files a wire's problems under its switch, its ports and the clock", () => {
    const f = defaultSpecForm();
    f.wire = { ...f.wire, on: true, b: 'eth0' };
    f.clock = 'dilated';
    const errors = issuesToErrors(checkSpecForm(f).issues);
    expect(errorAt(errors, 'wire.b')).toBe('a and b must be two different ports');
    expect(errorAt(errors, 'clock')).toMatch(/^must be realtime or auto with a wire/);
    expect(errors.root).toBeUndefined();
    expect(formFieldOf('wire.ports.a', f)).toBe('wire.a');
    expect(formFieldOf('wire.hosts', f)).toBe('wire.on');
  });

  it('reports cross-field rules on the field that breaks them', () => {
    const f = defaultSpecForm();
    f.flows[0] = { ...must(f.flows[0]), start: '40s' }; // the run is 30 s
    const errors = issuesToErrors(checkSpecForm(f).issues);
    expect(errorAt(errors, 'flows.0.start')).toMatch(/before the run ends/);
  });

  it('catches duplicate path names the record form would silently merge', () => {
    const f = defaultSpecForm();
    f.paths.push({ ...must(f.paths[0]) });
    const errors = issuesToErrors(checkSpecForm(f).issues);
    expect(errorAt(errors, 'paths.1.name')).toMatch(/duplicate path name/);
  });

  it('puts problems of fields without a control in root', () => {
    const f = defaultSpecForm();
    must(f.flows[0]).extra = { every: 'soon' };
    const errors = issuesToErrors(checkSpecForm(f).issues);
    expect(errors.root?.message).toMatch(/flows\.0\.every/);
  });

  it('reports the same problems, with the same paths, as the CLI and the API for the same spec', () => {
    const doc = parseDocument(BAD_SPEC);
    if (!doc.ok) throw new Error('the fixture parses');
    const form = specInputToForm(doc.value);
    const r = checkSpecForm(form);
    const cliAndApi = checkSpecText(BAD_SPEC);
    expect(cliAndApi.ok).toBe(false);
    if (cliAndApi.ok) return;
    expect(r.issues.map(({ path, message }) => ({ path, message }))).toEqual(cliAndApi.problems);
    expect(r.issues.map((i) => [i.path, i.formField])).toEqual(
      expect.arrayContaining([
        ['paths.main.rtt', 'paths.0.rtt'],
        ['flows.1.stack', 'flows.1.stack'],
      ]),
    );
    const errors = issuesToErrors(r.issues);
    expect(errorAt(errors, 'paths.0.rtt')).toMatch(/between 0ms and 5s/);
    expect(errorAt(errors, 'flows.1.stack')).toMatch(/unknown stack "tahoe"; available: reno/);
  });

  it('finds the form path of a path name holding dots', () => {
    const f = defaultSpecForm();
    f.paths = [
      { ...must(f.paths[0]), name: 'a' },
      { ...must(f.paths[0]), name: 'a.b' },
    ];
    expect(formFieldOf('paths.a.b.rtt', f)).toBe('paths.1.rtt');
    expect(formFieldOf('paths.a.rtt', f)).toBe('paths.0.rtt');
    expect(formFieldOf('paths.a.b', f)).toBe('paths.1.name');
    expect(formFieldOf('paths.zz.rtt', f)).toBe('paths.root');
  });
});
