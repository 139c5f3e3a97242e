// Whether a class can do a sheet before it is published: a student must never meet an allowed
// value the service then refuses, so the template, and each number field at its maximum, must
// validate and fit the class's student quota.
import { quotaProblems } from '../service/quotas.js';
import { type Quota, ServiceError } from '../service/types.js';
import { checkSpec } from '../service/validation.js';
import type { Sheet } from './sheet.js';
import { studentSpec, templateDocument } from './template.js';

/**
 * A sheet a class can do: its template is a valid spec, fits the class's student quota, and each
 * field's range ends do too (a student must not find an allowed value the service then refuses).
 */
export async function checkRunnable(sheet: Sheet, className: string, quota: Quota): Promise<void> {
  const doc = await templateDocument(sheet.template);
  const checked = checkSpec(doc, 'template');
  if (!checked.ok)
    throw new ServiceError(
      400,
      'the sheet’s experiment is not a valid spec',
      checked.problems.map((p) => ({ path: `template.${p.path}`, message: p.message })),
    );
  const problems = quotaProblems(checked.value, quota, 'student').map((p) => ({
    path: `template.${p.path}`,
    message: `${p.message} (class ${className})`,
  }));
  for (const [i, f] of sheet.fields.entries()) {
    if (f.options || f.max === undefined) continue;
    try {
      const { spec } = await studentSpec(sheet.template, sheet.fields, { [f.path]: f.max });
      for (const p of quotaProblems(spec, quota, 'student'))
        problems.push({
          path: `fields.${i}.max`,
          message: `at ${f.max}: ${p.message} (class ${className})`,
        });
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      problems.push({ path: `fields.${i}.max`, message: err.message });
    }
  }
  if (problems.length)
    throw new ServiceError(
      400,
      `students could not run this sheet: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      problems,
    );
}
