// Vite build of the web UI: web/index.html + web/src/** -> web/dist/, served by the server under /ui/.
// JSX is compiled for Preact by Vite's own Oxc transform (no framework plugin needed).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/ui/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // No polyfill script: every browser we support has modulepreload, and the CSP allows no inline code.
    modulePreload: { polyfill: false },
    // Inlined assets would become data: URLs (fonts, images): keep every asset a file of its own.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1000,
  },
  server: {
    // `npx vite web` for UI work: the API calls go to a server started with `npm start`.
    proxy: { '/api': 'http://127.0.0.1:9527', '/health': 'http://127.0.0.1:9527' },
  },
});
