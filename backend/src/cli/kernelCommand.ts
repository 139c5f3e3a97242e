// lfnlab kernel fetch | use: the lab kernel, pinned (kernels/manifest.json) or a vendor's own .deb
// pair recorded in the data dir. Either way the same inventory of stacks and qdiscs is printed,
// and a kernel that lacks what the lab needs is named as such.
import { MAINLINE_STACKS } from '@lfnlab/emulator';
import {
  clearKernelOverride,
  ensureHeaders,
  extractKernel,
  fetchKernel,
  type KernelInventory,
  kernelInventory,
  LAB_QDISCS,
  type LabNeeds,
  missingForLab,
  readKernelOverride,
  readVendorKernel,
  VendorKernelError,
  vendorSelection,
  writeKernelOverride,
} from '@lfnlab/kernels';
import { type Command, UsageError } from './args.js';

/** What the image build requires of any kernel (lab-images/src/build.ts asserts the same). */
export const LAB_NEEDS: LabNeeds = { stacks: MAINLINE_STACKS, qdiscs: LAB_QDISCS };

function printInventory(inv: KernelInventory): number {
  console.log(`  HZ ${inv.hz}`);
  console.log(`  stacks: ${inv.stacks.map((s) => s.name).join(' ')}`);
  console.log(`  qdiscs: ${inv.qdiscs.map((s) => s.name).join(' ')}`);
  const missing = missingForLab(inv, LAB_NEEDS);
  if (missing.stacks.length) console.log(`  MISSING stacks the lab needs: ${missing.stacks.join(' ')}`);
  if (missing.qdiscs.length) console.log(`  MISSING qdiscs the lab needs: ${missing.qdiscs.join(' ')}`);
  return missing.stacks.length + missing.qdiscs.length;
}

const USAGE = `usage: lfnlab kernel fetch [--headers] [--json]
       lfnlab kernel use --image-deb IMAGE.deb --headers-deb HEADERS.deb
       lfnlab kernel use --pinned

fetch  Downloads the kernel pinned in kernels/manifest.json from Debian's packages into the
       cache, verifies its sha256, and lists the congestion-control stacks and qdiscs it has.
       When the pin has left Debian's index, the newest ABI of the series is used, loudly.
       With a vendor kernel in use, checks and lists that one instead.
  --headers   also install the matching headers (for out-of-tree stacks)
  --json      print the selection and inventory as JSON

use    Replace the pinned kernel with a vendor's: a linux-image .deb and the headers .deb of the
       same kernel (self-contained, as 'make bindeb-pkg' makes them). Their paths and sha256 go
       into an override file in the data dir (the repository's pin is never edited); a .deb
       changed afterwards is refused until 'use' records it again. The kernel must offer every
       stack and qdisc the lab needs; the inventory is printed and anything missing named.
  --pinned    back to the kernel pinned in kernels/manifest.json`;

export const kernelCommand: Command = {
  name: 'kernel',
  summary: 'fetch the lab kernel, or use a vendor kernel .deb pair; list its stacks and qdiscs',
  usage: USAGE,
  options: {
    json: { type: 'boolean' },
    headers: { type: 'boolean' },
    'image-deb': { type: 'string' },
    'headers-deb': { type: 'string' },
    pinned: { type: 'boolean' },
  },
  async run(values, positionals) {
    const [verb] = positionals;
    if (verb === 'use') {
      if (values.pinned) {
        const had = readKernelOverride();
        clearKernelOverride();
        console.log(
          had
            ? `back to the pinned kernel (no longer ${had.image.package} ${had.image.version}); the next run rebuilds the image`
            : 'the pinned kernel is in use already',
        );
        return 0;
      }
      const image = values['image-deb'];
      const headers = values['headers-deb'];
      if (typeof image !== 'string' || typeof headers !== 'string')
        throw new UsageError(
          `kernel use needs --image-deb IMAGE.deb and --headers-deb HEADERS.deb (or --pinned)\n\n${USAGE}`,
        );
      try {
        const v = await readVendorKernel(image, headers);
        // Unpack and read the inventory before recording it, so a kernel the lab cannot use is
        // refused here rather than at the next run's image build.
        const tree = await extractKernel(vendorSelection(v));
        const inv = kernelInventory(v.abi, tree.modulesDir, tree.configPath);
        console.log(`${v.image.package} ${v.image.version} (vendor, ABI ${v.abi}) sha256 ${v.image.sha256}`);
        console.log(`  headers: ${v.headers.package} ${v.headers.version} sha256 ${v.headers.sha256}`);
        if (printInventory(inv)) {
          console.error(
            'lfnlab kernel use: this kernel lacks what the lab needs (above); not using it. Build them in or as modules.',
          );
          return 1;
        }
        console.log(`  recorded in ${writeKernelOverride(v)}; the next run builds the image on it`);
        console.log("  'lfnlab kernel use --pinned' goes back to the pinned kernel");
        return 0;
      } catch (err) {
        if (!(err instanceof VendorKernelError)) throw err;
        console.error(`lfnlab kernel use: ${err.message}`);
        return 2;
      }
    }
    if (verb !== 'fetch') throw new UsageError(USAGE);
    const sel = await fetchKernel();
    const tree = await extractKernel(sel);
    const inv = kernelInventory(sel.abi, tree.modulesDir, tree.configPath);
    const headers = values.headers ? await ensureHeaders(sel) : null;
    if (values.json) {
      console.log(
        JSON.stringify(
          { selection: sel, inventory: inv, missing: missingForLab(inv, LAB_NEEDS), headers },
          null,
          2,
        ),
      );
      return 0;
    }
    const how = sel.source === 'vendor' ? 'vendor' : sel.pinned ? 'pinned' : 'FALLBACK';
    console.log(`${sel.package} ${sel.version} (${how}) sha256 ${sel.sha256}`);
    const missing = printInventory(inv);
    if (headers) console.log(`  headers: ${headers}`);
    return missing ? 1 : 0;
  },
};
