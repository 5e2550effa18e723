/** An error with an HTTP status; the one `onError` handler turns it into a response. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 408 | 413 | 415 | 429 | 500 | 503,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A handler for a known path asked with a method it does not serve: 405 naming `allow`. */
export function methodNotAllowed(allow: string) {
  return (c: { req: { method: string; path: string } }): never => {
    throw new HttpError(405, `${c.req.method} is not allowed on ${c.req.path} (use ${allow})`, {
      Allow: allow,
    });
  };
}
