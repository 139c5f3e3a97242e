import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LAB_TEST_WORKERS } from './backend/test/support/testLab.mjs';

const src = (pkg: string) => fileURLToPath(new URL(`./${pkg}/src/index.ts`, import.meta.url));

// Tests import sibling packages from source so `vitest` needs no prior build.
const alias = {
  // Subpaths before their package, which would otherwise take them as a path below its index.
  '@lfnlab/grafana/testing': fileURLToPath(new URL('./grafana/test/support/index.ts', import.meta.url)),
  '@lfnlab/emulator/sizing': fileURLToPath(new URL('./emulator/src/plan/sizing.ts', import.meta.url)),
  '@lfnlab/metrics/theory': fileURLToPath(new URL('./backend/metrics/src/theory.ts', import.meta.url)),
  '@lfnlab/metrics/registry': fileURLToPath(new URL('./backend/metrics/src/registry.ts', import.meta.url)),
  '@lfnlab/metrics/limits': fileURLToPath(new URL('./backend/metrics/src/limits.ts', import.meta.url)),
  '@lfnlab/metrics': fileURLToPath(new URL('./backend/metrics/src/index.ts', import.meta.url)),
  '@lfnlab/emulator': src('emulator'),
  '@lfnlab/kernels': src('kernels'),
  '@lfnlab/lab-images': src('lab-images'),
  '@lfnlab/backend': src('backend'),
  '@lfnlab/grafana': src('grafana'),
};

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          // A guard against a hung test, not a speed target (benches hold those): beside two
          // running labs on 2 cores, tests that hash 30 passwords or send 1000 bodies took over 5 s.
          testTimeout: 30_000,
          // backend/metrics is a package nested in backend/, one level below the others.
          include: ['*/src/**/*.test.ts', 'backend/metrics/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: [
            '**/*.lab.test.ts',
            '**/*.integration.test.ts',
            '**/node_modules/**',
            '**/dist/**',
            'frontend/**',
          ],
        },
      },
      {
        // Real processes beside the tests (redis-server, the built CLI), no lab: slower than unit.
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['*/src/**/*.integration.test.ts'],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Real lab under qemu: a lab per worker (testLab.mjs), one file at a time on each. TCG
        // runs a lab on one core, so two labs use both of CI's; their dilated clocks keep each
        // run's numbers whatever the other lab does to the wall time.
        resolve: { alias },
        test: {
          name: 'lab',
          include: ['*/src/**/*.lab.test.ts', 'frontend/e2e/**/*.lab.test.ts'],
          globalSetup: ['backend/test/support/labSuite.ts'],
          maxWorkers: LAB_TEST_WORKERS,
          testTimeout: 600_000,
          hookTimeout: 900_000,
          sequence: { concurrent: false },
        },
      },
      {
        // Chromium against `lfnlab serve --lab fake` only (no qemu): the queue and results views.
        resolve: { alias },
        test: {
          name: 'e2e',
          include: ['frontend/e2e/**/*.e2e.test.ts'],
          fileParallelism: false,
          // A page answers in its own time: a poll's default second failed a card that came back
          // in two on a host also running two labs. A poll still ends as soon as it matches.
          expect: { poll: { timeout: 20_000 } },
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      // The web UI's component tests (happy-dom), configured beside the frontend.
      'frontend/vitest.config.ts',
    ],
  },
});
