import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Built by plugins/console/build.ts (at install, or at start when the sources changed) into
// dist/<hash of the sources>/, served by the console plugin. No network at build time.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    target: 'es2022',
    // Modern browsers only: no inline polyfill script (the CSP allows scripts of this origin only).
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 400,
  },
  server: {
    // `npm run dev --prefix plugins/console/app` next to `npm start`: the API on the same origin.
    proxy: { '/v1': 'http://127.0.0.1:3000', '/widget.js': 'http://127.0.0.1:3000' },
  },
});
