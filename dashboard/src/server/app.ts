import { Hono } from 'hono';
import { apiRoutes, detectionRoutes } from '../api/index.js';
import { quietRepeats } from './error-log.js';
import { HttpError, methodNotAllowed } from './errors.js';
import { hostGuard, originGuard } from './host-guard.js';
import { ingestRoutes, otlpErrorResponse } from './ingest.js';
import { InsertHealth } from './insert-health.js';
import { MetricsExposition, PROMETHEUS_CONTENT_TYPE } from './metrics.js';
import { bearerAuth, ingestLimiter, securityHeaders } from './middleware.js';
import { DEFAULT_UI_DIR, uiHandler } from './static.js';
import type { AppOptions } from './types.js';

/** Builds the dashboard app: OTLP ingest, JSON API, /metrics, /healthz and the UI. */
export function createApp(options: AppOptions): Hono {
  const { store } = options;
  const app = new Hono();
  const auth = bearerAuth(options.token);
  const report = options.onInternalError ?? quietRepeats(console.error);
  const sameOrigin = originGuard();
  app.use('*', securityHeaders(), hostGuard(options.allowedHosts));
  const health = new InsertHealth();
  app.get('/healthz', (c) => {
    const unhealthy = health.unhealthy();
    return unhealthy ? c.json(unhealthy, 503) : c.json({ status: 'ok' });
  });
  app.all('/healthz', methodNotAllowed('GET, HEAD'));
  app.use(
    '/v1/*',
    sameOrigin,
    auth,
    ingestLimiter({ max: options.maxInFlight ?? 32, maxBytes: options.maxInFlightBytes }),
  );
  app.use('/api/*', sameOrigin, auth);
  app.use('/metrics', sameOrigin, auth);
  app.route(
    '/',
    ingestRoutes(store, {
      bodyLimits: {
        maxBytes: options.maxBodyBytes,
        timeoutMs: options.bodyTimeoutMs,
        minBytesPerSecond: options.minBodyBytesPerSecond,
        graceMs: options.bodyGraceMs,
      },
      onStoreError: report,
      health,
    }),
  );
  app.route('/api', detectionRoutes(store));
  app.route('/api', apiRoutes(store, options.prices));
  const exposition = new MetricsExposition({ maxSeriesPerFamily: options.maxMetricSeries });
  app.get('/metrics', async (c) =>
    c.body(exposition.render(await store.counters()), 200, {
      'Content-Type': PROMETHEUS_CONTENT_TYPE,
    }),
  );
  app.all('/metrics', methodNotAllowed('GET, HEAD'));
  app.get('*', uiHandler(options.uiDir ?? DEFAULT_UI_DIR));
  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => {
    const known = error instanceof HttpError;
    if (!known) report(error);
    const status = known ? error.status : 500;
    const message = known ? error.message : 'internal error';
    const headers = known ? error.headers : {};
    if (c.req.path.startsWith('/v1/'))
      return otlpErrorResponse(c.req.raw, status, message, headers);
    return c.json({ error: message }, status, headers);
  });
  return app;
}
