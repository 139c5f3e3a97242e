import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { sharedAliases } from './aliases.ts';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  resolve: { alias: sharedAliases },
  test: {
    name: 'ui',
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['test/support/setup.ts'],
    // Tests stub fetch (test/support/api.ts); each starts with the real one again.
    unstubGlobals: true,
    // A guard against a hung test, not a speed target: beside two running labs on 2 cores a
    // designer walk-through took over the default 5 s.
    testTimeout: 30_000,
  },
});
