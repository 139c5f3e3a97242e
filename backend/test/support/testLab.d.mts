export const LAB_TEST_WORKERS: number;
/** The lab of worker `poolId` (1-based; default: this vitest worker's). */
export function testLabName(poolId?: number): string;
/** Every lab the suite's workers may boot. */
export function testLabNames(): string[];
