import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from './errors.js';

/** Requires `Authorization: Bearer <token>`; a no-op when no token is configured. */
export function bearerAuth(token: string | undefined): MiddlewareHandler {
  const expected = token ? Buffer.from(token, 'utf8') : undefined;
  return async (c, next) => {
    if (expected) {
      const header = c.req.header('authorization') ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      const given = Buffer.from(match?.[1] ?? '', 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new HttpError(401, match ? 'invalid bearer token' : 'missing bearer token', {
          'WWW-Authenticate': 'Bearer realm="loopguard"',
        });
      }
    }
    await next();
  };
}

/** Content-Security-Policy of the dashboard: no inline script, nothing from other origins. */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/** Adds security headers to every response. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Content-Security-Policy', CSP);
  };
}

/**
 * Bounds the ingest requests in flight (body read, decode, insert). Beyond `max`, answers 429
 * with Retry-After so OTLP exporters back off and retry.
 */
export function ingestLimiter(options: {
  max: number;
  retryAfterSeconds?: number;
}): MiddlewareHandler {
  let inFlight = 0;
  return async (_c, next) => {
    if (inFlight >= options.max) {
      throw new HttpError(
        429,
        `ingest over capacity (${options.max} requests in flight), retry later`,
        {
          'Retry-After': String(options.retryAfterSeconds ?? 1),
        },
      );
    }
    inFlight++;
    try {
      await next();
    } finally {
      inFlight--;
    }
  };
}
