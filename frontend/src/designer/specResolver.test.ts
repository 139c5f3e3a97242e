import { describe, expect, it } from 'vitest';
import { must } from '../test/must';
import { errorAt } from './fieldError';
import { defaultSpecForm } from './formModel';
import { checkSpecForm, issuesToErrors } from './specResolver';

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
    expect(errors.root?.message).toMatch(/flows\[0\]\.every/);
  });
});
