import type { MiddlewareHandler } from 'hono';
import { HttpError } from './errors.js';

/** Host names a loopback-bound dashboard always answers to (with any port). */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

function hostnameOf(authority: string, scheme = 'http:'): URL | undefined {
  if (!/^[\w.\-:[\]]+$/.test(authority)) return undefined;
  try {
    return new URL(`${scheme}//${authority}`);
  } catch {
    return undefined;
  }
}

/**
 * The normalized host name of `name` (lowercase, IPv6 in brackets, no trailing dot); a port after
 * a name or address (`dashboard:4318`) is left off, a bare IPv6 address (`::1`) takes brackets.
 */
function normalizeName(name: string): string | undefined {
  const bare = name.trim();
  const url = hostnameOf(bare) ?? (bare.startsWith('[') ? undefined : hostnameOf(`[${bare}]`));
  return url?.hostname.replace(/\.$/, '');
}

/** True when `name` (a host name or address, no port) always resolves to this machine. */
export function isLoopbackName(name: string): boolean {
  const h = normalizeName(name);
  if (h === undefined) return false;
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  );
}

/**
 * The host names `createApp` should accept for a server bound to `bindHost`: the `given` list plus
 * the bind host itself, or `['*']` (no Host check) when the bind address is not loopback and no
 * list is given.
 */
export function resolveAllowedHosts(bindHost: string, given: readonly string[] = []): string[] {
  const wildcard = ['', '0.0.0.0', '::', '[::]'].includes(bindHost.trim());
  if (given.length === 0 && !isLoopbackName(bindHost)) return ['*'];
  return wildcard ? [...given] : [...given, bindHost];
}

/** Splits a comma- or space-separated host list (LOOPGUARD_ALLOWED_HOSTS, --allowed-host). */
export function parseHostList(text: string | undefined): string[] {
  return (text ?? '').split(/[\s,]+/).filter((h) => h !== '');
}

/**
 * Answers 403 to a request whose Host header does not name loopback or one of `allowed` (host
 * names, any port): a page that DNS-rebinds its own name to 127.0.0.1 sends its own name as Host.
 * `'*'` in `allowed` turns the check off.
 */
export function hostGuard(allowed: readonly string[] = []): MiddlewareHandler {
  if (allowed.includes('*')) return async (_c, next) => next();
  const names = new Set(
    allowed.map((name) => {
      const normalized = normalizeName(name);
      if (normalized === undefined || normalized === '') {
        throw new Error(
          `allowed host "${name}" is not a host name (write a name or address such as dashboard, ` +
            '10.0.0.5 or [::1]; any port is accepted)',
        );
      }
      return normalized;
    }),
  );
  const accepted = [...new Set<string>([...LOOPBACK_NAMES, ...names])].join(', ');
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const name = hostnameOf(host)?.hostname.replace(/\.$/, '');
    if (name === undefined || !(isLoopbackName(name) || names.has(name))) {
      throw new HttpError(
        403,
        `Host "${host}" is not allowed: this dashboard answers to ${accepted} (any port); ` +
          'add a name with --allowed-host or LOOPGUARD_ALLOWED_HOSTS',
      );
    }
    await next();
  };
}

/**
 * Answers 403 to a browser request from another origin: one whose Origin header does not name
 * the scheme and Host it was sent to (`https://127.0.0.1:4318` is another origin than the
 * dashboard's `http://127.0.0.1:4318`). Requests without Origin (OTLP exporters, curl, same-origin GETs) pass.
 */
export function originGuard(): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      const own = new URL(c.req.url).protocol;
      const host = c.req.header('host') ?? new URL(c.req.url).host;
      let from: URL | undefined;
      try {
        from = new URL(origin);
      } catch {}
      const to = hostnameOf(host, own);
      if (!from || !to || origin === 'null' || from.protocol !== own || from.host !== to.host) {
        throw new HttpError(403, `cross-origin request from "${origin}" to "${host}" refused`);
      }
    }
    await next();
  };
}
