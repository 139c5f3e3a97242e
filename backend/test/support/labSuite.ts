// The lab project's global set-up: the suite boots its lab (TEST_LAB) on first use; at the end it
// powers that lab off again, unless the lab was already up before the suite started (a lab someone
// is using, or one a caller keeps warm between runs). A qemu left behind holds a core and 2 GiB.
import { labDown, readLab } from '@lfnlab/lab-images';
import { TEST_LAB } from './lab.js';

export default function labSuite(): () => Promise<void> {
  const upBefore = readLab(TEST_LAB) !== null;
  return async () => {
    if (upBefore) return;
    if (await labDown(TEST_LAB)) console.log(`lab '${TEST_LAB}' powered off: the suite booted it`);
  };
}
