// Every rollup-based answer of a store over the agent spans' day (hotspot pages in several sorts,
// filters, ranges and pages; session lists; summaries; counters), as one comparable value: two
// stores that hold the same spans must give equal answers, compacted or not.
import { createHash } from 'node:crypto';
import type { QueryFilter } from '../../src/api/types.js';
import type { Store } from '../../src/store/index.js';
import { comparable, filters, HOUR, MIN, ranges, T0 } from '../hotspot-fixtures.js';

/** Hotspot sorts: the totals' fast path (descending counts), exact orders, sessions and names. */
const SORTS: [string, 'asc' | 'desc'][] = [
  ['calls', 'desc'],
  ['calls', 'asc'],
  ['blocks', 'desc'],
  ['repeatSeconds', 'asc'],
  ['firstSeen', 'asc'],
  ['sessions', 'desc'],
  ['signature', 'asc'],
];

/** Filters of hotspots and sessions (the signature and action ones take the matching sessions). */
const FILTERS: Omit<QueryFilter, 'from' | 'to'>[] = [
  {},
  { service: 'svc-1' },
  ...filters.filter((f) => f.signature).slice(0, 1),
  { action: 'block' },
  { service: 'svc-0', action: 'warn' },
];

/** Ranges: the day, partial hours at both ends, and a day reaching past the spans. */
const RANGES: [string, QueryFilter][] = [
  ...ranges.slice(0, 2),
  ['past the end', { from: T0 + 10 * HOUR + 7 * MIN, to: T0 + 34 * HOUR }],
];

/** The answers of `store`, keyed by what was asked. */
export async function storeAnswers(store: Store): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, range] of RANGES) {
    out[`summary ${name}`] = await store.summary(range);
    for (const filter of FILTERS) {
      const where = `${name} ${JSON.stringify(filter)}`;
      for (const [sort, order] of SORTS) {
        const got = await store.hotspots({ ...range, ...filter }, { limit: 6, sort, order });
        out[`hotspots ${where} ${sort} ${order}`] = {
          total: got.total,
          rows: comparable(got.rows),
        };
      }
      for (const sort of ['end', 'calls'] as const) {
        const request = { limit: 20, sort, order: 'desc' as const };
        out[`sessions ${where} ${sort}`] = await store.sessions({ ...range, ...filter }, request);
      }
    }
  }
  out.counters = await store.counters();
  return out;
}

/** The sha256 of answers as JSON (to pin the answers of another build in a test). */
export function answersDigest(answers: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(answers)).digest('hex');
}
