/** An error with an HTTP status; the one `onError` handler turns it into a response. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 413 | 415 | 429 | 500 | 503,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
