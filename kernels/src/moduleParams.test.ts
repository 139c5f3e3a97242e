import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { moduleParamsIn, moduleParamsOf, ownerWritable } from './moduleParams.js';

const FIXTURE = fileURLToPath(new URL('../../backend/test/fixtures/vendor-stack', import.meta.url));

describe('module parameters a run may set', () => {
  it("reads the vendor fixture's writable beta_pct with its default and description, not the read-only knob", () => {
    expect(moduleParamsIn(FIXTURE)).toEqual([
      {
        name: 'beta_pct',
        type: 'int',
        default: 50,
        description: 'share of the window kept on a loss, in percent (1-99)',
      },
    ]);
  });

  it('counts owner write in octal and symbolic permissions only', () => {
    expect(['0644', '0600', '0200', 'S_IRUGO | S_IWUSR', 'S_IRWXU'].map(ownerWritable)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['0444', '0', '0044', 'S_IRUGO', 'perm'].map(ownerWritable)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('takes whole-number types with a literal default; leaves out strings, arrays of text and computed defaults', () => {
    const c = `
      static unsigned int delta_l_ms __read_mostly = 1000U;
      module_param(delta_l_ms, uint, 0644);
      static bool enabled = true;
      module_param(enabled, bool, 0644);
      static long offset = -5;
      module_param(offset, long, S_IRUGO | S_IWUSR);
      static char *label = "x";
      module_param(label, charp, 0644);
      static int computed = HZ / 10;
      module_param(computed, int, 0644);
      static int hex = 0x10;
      module_param(hex, int, 0644);
      /* module_param(gone, int, 0644); */
      // module_param(gone2, int, 0644);
    `;
    expect(moduleParamsOf(c).map((p) => [p.name, p.type, p.default])).toEqual([
      ['delta_l_ms', 'uint', 1000],
      ['enabled', 'bool', 1],
      ['offset', 'long', -5],
      ['hex', 'int', 16],
    ]);
  });
});
