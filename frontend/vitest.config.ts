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
  },
});
