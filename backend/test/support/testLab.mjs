// The lab each lab-test worker drives. The lab project runs its files on LAB_TEST_WORKERS vitest
// workers at once, each on a lab of its own: worker 1 on LFNLAB_TEST_LAB (default: default), worker
// N on that name with "-wN". Plain .mjs so the service's e2e harness and the suite's global set-up
// (which runs outside any worker) name the same labs without importing the lab code.

/** Lab-test workers, and so labs, at once (LFNLAB_TEST_LABS, default 2: one per core here). */
export const LAB_TEST_WORKERS = Math.max(1, Number(process.env.LFNLAB_TEST_LABS) || 2);

/** The lab of worker `poolId` (1-based). */
export function testLabName(poolId = Number(process.env.VITEST_POOL_ID) || 1) {
  const base = process.env.LFNLAB_TEST_LAB || 'default';
  return poolId > 1 ? `${base}-w${poolId}` : base;
}

/** Every lab the suite's workers may boot. */
export function testLabNames() {
  return Array.from({ length: LAB_TEST_WORKERS }, (_, i) => testLabName(i + 1));
}
