import type { ApiError } from '../models/api.js';

/** A failed request, as a readable line (401 is handled by the token panel). */
export function ErrorNotice({ error }: { error: ApiError }) {
  if (error.status === 401) return null;
  return (
    <p class="error-notice" role="alert">
      Could not load data: {error.message}
    </p>
  );
}
