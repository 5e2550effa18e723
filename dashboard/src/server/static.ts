import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';

/** Where the Vite build of the UI lands (dashboard/dist/ui), from src/server or dist/server. */
export const DEFAULT_UI_DIR = fileURLToPath(new URL('../../dist/ui', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Shown when the UI has not been built; static, no script. */
export const PLACEHOLDER_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>loopguard dashboard</title></head>
<body><h1>loopguard dashboard</h1>
<p>The server is running, but the UI is not built. Run <code>pnpm --filter @loopguard/dashboard run build</code>
and reload. The JSON API is available under <code>/api/</code> and metrics at <code>/metrics</code>.</p>
</body></html>
`;

function file(path: string): Buffer | undefined {
  try {
    return statSync(path).isFile() ? readFileSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serves the built UI from `dir`: existing files as they are, index.html for `/` and other
 * one-segment paths (the UI routes in the hash; its assets load relative to the page), 404 for
 * anything else (a missing asset, a deeper path whose page could not load its assets), a
 * placeholder page when the build is missing.
 */
export function uiHandler(dir: string): (c: Context) => Response {
  const root = resolve(dir);
  return (c) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      path = '/';
    }
    const target = resolve(join(root, path));
    if (target.startsWith(root + sep) && !path.endsWith('/')) {
      const body = file(target);
      if (body) {
        const immutable = path.startsWith('/assets/');
        return c.body(new Uint8Array(body), 200, {
          'Content-Type': TYPES[extname(target)] ?? 'application/octet-stream',
          'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        });
      }
    }
    if (path.startsWith('/assets/') || path.indexOf('/', 1) >= 0) {
      return c.text('not found', 404, { 'Cache-Control': 'no-store' });
    }
    const index = existsSync(root) ? file(join(root, 'index.html')) : undefined;
    if (!index) return c.html(PLACEHOLDER_HTML, 200, { 'Cache-Control': 'no-store' });
    return c.body(new Uint8Array(index), 200, {
      'Content-Type': TYPES['.html']!,
      'Cache-Control': 'no-cache',
    });
  };
}
