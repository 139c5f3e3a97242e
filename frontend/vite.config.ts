import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { sharedAliases } from './aliases.ts';

// The service serves dist/ at `/` on the same origin as /api, so dev proxies /api to it.
const backend = process.env.LFN_BACKEND ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: sharedAliases },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 600 },
  server: { proxy: { '/api': { target: backend, ws: true, changeOrigin: false } } },
});
