// The lab project's global set-up: each worker boots its lab (testLabNames) on first use; at the
// end the suite powers those labs off again, except any that was already up before the suite
// started (a lab someone is using, or one a caller keeps warm between runs). A qemu left behind
// holds a core and 2 GiB.
import { labDown, readLab } from '@lfnlab/lab-images';
import { testLabNames } from './testLab.mjs';

export default function labSuite(): () => Promise<void> {
  const booted = testLabNames().filter((name) => readLab(name) === null);
  return async () => {
    for (const name of booted)
      if (await labDown(name)) console.log(`lab '${name}' powered off: the suite booted it`);
  };
}
