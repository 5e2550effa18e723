import { Hono } from 'hono';
import { HttpError, methodNotAllowed } from '../server/errors.js';
import type { Store } from '../store/index.js';
import { HOTSPOT_SORTS, SESSION_SORTS } from '../store/index.js';
import { parseBucket, parseFilter, parsePage, parseRange } from './params.js';
import type { ModelPrice } from './types.js';

const TRACE_ID = /^[0-9a-fA-F]{32}$/;

/** Query parameters as a plain record. */
function query(c: { req: { query(): Record<string, string> } }): Record<string, string> {
  return c.req.query();
}

/** One session's timeline (`/sessions/:id`, `/session?scope=`). */
async function sessionDetail(store: Store, scope: string, q: Record<string, string>) {
  const hasRange = Boolean(q.from || q.to || q.range);
  const filter = hasRange ? parseRange(q) : {};
  const page = parsePage(q, [], 5000);
  const detail = await store.session(
    scope,
    { ...filter, ...(q.service ? { service: q.service } : {}) },
    page,
  );
  if (!detail) throw new HttpError(404, `no session with scope "${scope}"`);
  return detail;
}

/** The JSON API under /api (shapes in api/types.ts); `prices` converts `/spend` to money. */
export function apiRoutes(store: Store, prices?: ReadonlyMap<string, ModelPrice>): Hono {
  const app = new Hono();
  app.get('/spend', async (c) => {
    const q = query(c);
    return c.json(
      await store.spend(parseFilter(q), {
        ...(q.scope ? { scope: q.scope } : {}),
        ...(prices ? { prices } : {}),
      }),
    );
  });
  app.get('/summary', async (c) => c.json(await store.summary(parseFilter(query(c)))));
  app.get('/hotspots', async (c) => {
    const q = query(c);
    return c.json(await store.hotspots(parseFilter(q), parsePage(q, HOTSPOT_SORTS)));
  });
  app.get('/sessions', async (c) => {
    const q = query(c);
    return c.json(await store.sessions(parseFilter(q), parsePage(q, SESSION_SORTS)));
  });
  // `/session?scope=` also reaches scopes a URL path cannot carry ("." and "..")
  app.get('/sessions/:id', async (c) =>
    c.json(await sessionDetail(store, c.req.param('id'), query(c))),
  );
  app.get('/session', async (c) => {
    const q = query(c);
    // calls without a scope are in no session (the sessions list leaves them out)
    if (!q.scope) throw new HttpError(400, 'scope is required');
    return c.json(await sessionDetail(store, q.scope, q));
  });
  app.get('/series', async (c) => {
    const q = query(c);
    const filter = parseFilter(q);
    return c.json(await store.series(filter, parseBucket(q, filter)));
  });
  app.get('/traces/:traceId', async (c) => {
    const traceId = c.req.param('traceId');
    if (!TRACE_ID.test(traceId)) throw new HttpError(400, 'traceId must be 32 hex digits');
    return c.json(await store.trace(traceId.toLowerCase()));
  });
  app.get('/facets', async (c) => c.json(await store.facets(parseFilter(query(c)))));
  // every endpoint above, asked with another method
  const endpoints = new Set(app.routes.filter((r) => r.method === 'GET').map((r) => r.path));
  for (const path of endpoints) app.all(path, methodNotAllowed('GET, HEAD'));
  app.all('*', () => {
    throw new HttpError(404, 'no such API endpoint');
  });
  return app;
}
