import preact from '@preact/preset-vite';
import { defineConfig, type Plugin } from 'vite';

/** A strict Content-Security-Policy for the built page: no inline or foreign scripts. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const csp = (): Plugin => ({
  name: 'loopguard-csp',
  apply: 'build',
  transformIndexHtml: () => [
    {
      tag: 'meta',
      attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP },
      injectTo: 'head-prepend',
    },
  ],
});

/** Builds the dashboard UI (src/ui) into dist/ui; the dev server proxies /api to a running dashboard. */
export default defineConfig({
  root: 'src/ui',
  base: './',
  plugins: [preact(), csp()],
  build: {
    outDir: '../../dist/ui',
    emptyOutDir: true,
    target: 'es2022',
  },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': 'http://127.0.0.1:4318' },
  },
});
