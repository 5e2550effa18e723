/** The pages of the dashboard, parsed from the location hash. */
export type Route =
  | { page: 'overview' }
  | { page: 'hotspots' }
  | { page: 'sessions'; signature?: string }
  /** `signature`: the list the session was opened from (`← Sessions` leads back to it). */
  | { page: 'session'; scope: string; signature?: string };

/** Parses `#/sessions?signature=...`, `#/sessions/<encoded scope>` and friends. */
export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [path = '', query = ''] = raw.split('?', 2);
  const params = new URLSearchParams(query);
  const parts = path.split('/').filter(Boolean);
  const [first, second] = parts;
  if (first === 'hotspots') return { page: 'hotspots' };
  const signature = params.get('signature') || undefined;
  if (first === 'sessions' && second !== undefined) {
    const scope = safeDecode(parts.slice(1).join('/'));
    return signature ? { page: 'session', scope, signature } : { page: 'session', scope };
  }
  if (first === 'sessions') {
    return signature ? { page: 'sessions', signature } : { page: 'sessions' };
  }
  return { page: 'overview' };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The hash link of a route, with `params` (range and filters) in its query. */
export function hrefOf(route: Route, params: Record<string, string> = {}): string {
  const query = new URLSearchParams();
  let path: string;
  switch (route.page) {
    case 'overview':
      path = '#/overview';
      break;
    case 'hotspots':
      path = '#/hotspots';
      break;
    case 'sessions':
      path = '#/sessions';
      if (route.signature) query.set('signature', route.signature);
      break;
    case 'session':
      path = `#/sessions/${encodeURIComponent(route.scope)}`;
      if (route.signature) query.set('signature', route.signature);
      break;
  }
  for (const [key, value] of Object.entries(params)) if (value !== '') query.set(key, value);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** The query parameters of a location hash (`#/hotspots?range=7d` → range=7d). */
export function hashParams(hash: string): URLSearchParams {
  const at = hash.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
}

/** The list `← Sessions` on a session timeline leads to: the one the session was opened from. */
export function listOfSession(route: Extract<Route, { page: 'session' }>): Route {
  return route.signature ? { page: 'sessions', signature: route.signature } : { page: 'sessions' };
}

/** The session route of a scope opened from the sessions list of `signature` (if any). */
export function sessionFromList(scope: string, signature?: string): Route {
  return signature ? { page: 'session', scope, signature } : { page: 'session', scope };
}
