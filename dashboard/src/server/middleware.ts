import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ByteBudget } from './byte-budget.js';
import { HttpError } from './errors.js';

/** Requires `Authorization: Bearer <token>`; a no-op when no token is configured. */
export function bearerAuth(token: string | undefined): MiddlewareHandler {
  // digests of equal length: the comparison's time tells nothing, not even the token's length
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  const expected = token ? digest(token) : undefined;
  return async (c, next) => {
    if (expected) {
      const header = c.req.header('authorization') ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      if (!timingSafeEqual(digest(match?.[1] ?? ''), expected)) {
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
 * Bytes of request bodies the ingest requests in flight may hold together: 64 MiB, three bodies
 * at the limit (each costs up to about 25 times its size in memory while it is decoded and staged).
 */
export const MAX_IN_FLIGHT_BYTES = 64 * 1024 * 1024;

/**
 * What `ingestLimiter` gives the ingest route: `reserveBody(bytes)` before keeping a body chunk,
 * `admit()` once the whole body has arrived, before it is decoded and inserted.
 */
export type IngestVariables = { reserveBody: (bytes: number) => void; admit: () => void };

/**
 * Bounds the ingest requests being decoded and inserted, and the body bytes that all ingest
 * requests hold together. A request takes one of the `max` places only once its body has
 * arrived, so clients that send their bodies slowly hold nothing but the bytes they sent.
 * Beyond either bound, answers 429 with Retry-After so OTLP exporters back off and retry.
 */
export function ingestLimiter(options: {
  max: number;
  maxBytes?: number;
  retryAfterSeconds?: number;
}): MiddlewareHandler<{ Variables: IngestVariables }> {
  let inFlight = 0;
  const budget = new ByteBudget(options.maxBytes ?? MAX_IN_FLIGHT_BYTES);
  const overCapacity = (what: string) =>
    new HttpError(429, `ingest over capacity (${what} in flight), retry later`, {
      'Retry-After': String(options.retryAfterSeconds ?? 1),
    });
  return async (c, next) => {
    let held = 0;
    let admitted = false;
    c.set('reserveBody', (bytes) => {
      if (!budget.take(bytes, held)) {
        throw overCapacity(`${Math.round(budget.max / 2 ** 20)} MiB of request bodies`);
      }
      held += bytes;
    });
    c.set('admit', () => {
      if (inFlight >= options.max) throw overCapacity(`${options.max} requests`);
      inFlight++;
      admitted = true;
    });
    try {
      await next();
    } finally {
      if (admitted) inFlight--;
      budget.release(held);
    }
  };
}
