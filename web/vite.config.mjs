// Vite build of the web UI: web/index.html + web/src/** -> web/dist/, served by the server under /ui/.
// JSX is compiled for Preact by Vite's own Oxc transform (no framework plugin needed).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const serverRoot = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * The UI takes only the server's types (@server/*, web/tsconfig.json), which the build erases; a
 * value import would bundle server code (and zod), so it fails the build here (and the lint).
 */
const noServerCode = {
  name: 'no-server-code',
  // The filter runs in the bundler: the hook is called only for a server file.
  load: {
    filter: { id: new RegExp(`^${serverRoot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) },
    handler(id) {
      this.error(`${id}: the web UI imports only types from src/ (import type)`);
    },
  },
};

export default defineConfig({
  root,
  base: '/ui/',
  publicDir: false,
  plugins: [noServerCode],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: {
    // React libraries (the chain editor's @xyflow/react, and zustand under it) run on Preact's
    // compatibility layer: one small runtime instead of React's. Exact matches, longest first.
    alias: [
      { find: /^react\/jsx-runtime$/, replacement: 'preact/compat/jsx-runtime' },
      { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/compat/jsx-dev-runtime' },
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react$/, replacement: 'preact/compat' },
    ],
  },
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
    rollupOptions: {
      // @xyflow/react starts with React's "use client" marker, which means nothing outside React
      // server components: not worth a warning on every build.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    // `npx vite web` for UI work: the API calls go to a server started with `npm start`.
    proxy: { '/api': 'http://127.0.0.1:9527', '/health': 'http://127.0.0.1:9527' },
  },
});
