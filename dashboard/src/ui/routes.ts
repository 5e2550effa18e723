/** The pages of the dashboard, parsed from the location hash. */
export type Route =
  | { page: 'overview' }
  | { page: 'hotspots' }
  | { page: 'sessions'; signature?: string }
  | { page: 'session'; scope: string };

/** Parses `#/sessions?signature=...`, `#/sessions/<encoded scope>` and friends. */
export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [path = '', query = ''] = raw.split('?', 2);
  const params = new URLSearchParams(query);
  const parts = path.split('/').filter(Boolean);
  const [first, second] = parts;
  if (first === 'hotspots') return { page: 'hotspots' };
  if (first === 'sessions' && second !== undefined) {
    return { page: 'session', scope: safeDecode(parts.slice(1).join('/')) };
  }
  if (first === 'sessions') {
    const signature = params.get('signature') ?? undefined;
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

/** The hash link of a route. */
export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'overview':
      return '#/overview';
    case 'hotspots':
      return '#/hotspots';
    case 'sessions':
      return route.signature
        ? `#/sessions?signature=${encodeURIComponent(route.signature)}`
        : '#/sessions';
    case 'session':
      return `#/sessions/${encodeURIComponent(route.scope)}`;
  }
}
