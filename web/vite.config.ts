// Vite builds the console into web/dist (served by http/console.ts). `npm run web:dev` serves it
// with hot reload and proxies /api (HTTP and the logs WebSocket) to a running service on :8100.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    assetsInlineLimit: 0,
  },
  server: {
    proxy: { '/api': { target: process.env.LNM_API_URL ?? 'http://127.0.0.1:8100', ws: true } },
  },
});
