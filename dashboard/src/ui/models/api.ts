import { signal } from '@preact/signals';

const TOKEN_KEY = 'loopguard.token';

function readToken(): string {
  try {
    return localStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

/** The bearer token sent with every API request ('' = none), kept in localStorage. */
export const token = signal(readToken());

/** True once the server answered 401: the UI then asks for a token. */
export const unauthorized = signal(false);

/** Stores (or clears, with '') the bearer token; every resource refetches. */
export function setToken(value: string): void {
  const trimmed = value.trim();
  try {
    if (trimmed) localStorage.setItem(TOKEN_KEY, trimmed);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage may be disabled; the token still lives for this tab
  }
  unauthorized.value = false;
  token.value = trimmed;
}

/** Query parameters of an API call; undefined and '' values are left out. */
export type Params = Record<string, string | number | undefined>;

/** Builds `/api/<path>?<params>` with stable parameter order. */
export function apiUrl(path: string, params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const query = search.toString();
  return `api/${path}${query ? `?${query}` : ''}`;
}

/** A failed API call: HTTP status (0 = network) and a readable message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The reason of an error answer: the API's `{"error": "..."}` as its text, anything else as is. */
function errorText(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object' && 'error' in parsed) {
      const { error } = parsed as { error: unknown };
      if (typeof error === 'string') return error;
    }
  } catch {
    // not JSON: a proxy's page, say
  }
  return body;
}

/** GETs JSON from the dashboard API with the bearer token; throws ApiError on failure. */
export async function getJson<T>(url: string, abort: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const bearer = token.peek();
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: abort });
  } catch (err) {
    if (abort.aborted) throw err;
    throw new ApiError(0, `Cannot reach the dashboard server (${String(err)})`);
  }
  if (res.status === 401) {
    unauthorized.value = true;
    throw new ApiError(401, 'The dashboard requires a token (LOOPGUARD_TOKEN).');
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    const reason = errorText(text);
    throw new ApiError(
      res.status,
      `${res.status} ${res.statusText}${reason ? `: ${reason.slice(0, 300)}` : ''}`,
    );
  }
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    // a proxy's or login page's HTML, say: "SyntaxError: Unexpected token '<'" tells no one anything
    const type = res.headers.get('content-type')?.split(';')[0] || 'no content type';
    throw new ApiError(
      res.status,
      `The server answered ${url.split('?')[0]} with ${type} instead of JSON (a proxy or login page in between?)`,
    );
  }
}
