import type { PageRequest } from '../../api/types.js';

/** Sortable columns of /api/hotspots rows. */
export const HOTSPOT_SORTS = [
  'service',
  'tool',
  'signature',
  'calls',
  'longestStreak',
  'nudges',
  'warns',
  'blocks',
  'halts',
  'sessions',
  'repeatSeconds',
  'firstSeen',
  'lastSeen',
] as const;

/** Sortable columns of /api/sessions rows. */
export const SESSION_SORTS = [
  'scope',
  'service',
  'calls',
  'longestStreak',
  'worstAction',
  'halted',
  'nudges',
  'warns',
  'blocks',
  'start',
  'end',
] as const;

/** Page size when the request names none. */
export const PAGE_DEFAULT = 50;
/** Largest page size; larger requests are clamped to it. */
export const PAGE_MAX = 500;

/** A page request with defaults applied and the sort column checked against `allowed`. */
export function normalizePage(
  page: PageRequest | undefined,
  allowed: readonly string[],
  defaultSort: string,
): { limit: number; offset: number; sort: string; order: 'asc' | 'desc' } {
  const limit = Math.min(Math.max(Math.trunc(page?.limit ?? PAGE_DEFAULT), 1), PAGE_MAX);
  const offset = Math.max(Math.trunc(page?.offset ?? 0), 0);
  const sort = page?.sort && allowed.includes(page.sort) ? page.sort : defaultSort;
  const order = page?.order === 'asc' ? 'asc' : 'desc';
  return { limit, offset, sort, order };
}

/** Most calls returned on one session timeline. */
export const TIMELINE_MAX = 5000;

/** Limit and offset of a session timeline page (all calls up to TIMELINE_MAX by default). */
export function timelinePage(page: { limit?: number; offset?: number }): {
  limit: number;
  offset: number;
} {
  const limit = Math.min(Math.max(Math.trunc(page.limit ?? TIMELINE_MAX), 1), TIMELINE_MAX);
  return { limit, offset: Math.max(Math.trunc(page.offset ?? 0), 0) };
}
