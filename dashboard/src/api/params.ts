import { HttpError } from '../server/errors.js';
import { ACTIONS } from '../store/index.js';
import type { LoopAction, PageRequest, QueryFilter } from './types.js';

type Query = Record<string, string | undefined>;

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Milliseconds of a duration such as `30s`, `15m`, `24h`, `7d`; undefined when invalid. The unit
 * is required: a bare number is ambiguous (`7` meant 7 ms and pruned everything as retention).
 */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d{1,9})(s|m|h|d)$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNITS[m[2]!]!;
  return ms > 0 ? ms : undefined;
}

function bad(message: string): never {
  throw new HttpError(400, message);
}

function epochMs(q: Query, name: string): number | undefined {
  const v = q[name];
  if (v === undefined || v === '') return undefined;
  if (!/^\d{1,15}$/.test(v))
    bad(`${name} must be epoch milliseconds (a non-negative integer), got "${v}"`);
  return Number(v);
}

function text(q: Query, name: string): string | undefined {
  const v = q[name];
  if (v === undefined || v === '') return undefined;
  if (v.length > 1024) bad(`${name} is longer than 1024 characters`);
  return v;
}

function int(q: Query, name: string, min: number, max: number): number | undefined {
  const v = q[name];
  if (v === undefined || v === '') return undefined;
  if (!/^\d{1,9}$/.test(v) || Number(v) < min || Number(v) > max) {
    bad(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
  }
  return Number(v);
}

/** Default window when neither `range` nor `from` is given: the last 24 hours. */
export const DEFAULT_RANGE_MS = 86_400_000;

/** Time range of a query: `from`/`to` epoch ms, or `range` (e.g. 15m, 1h, 24h, 7d) ending at `to`/now. */
export function parseRange(q: Query, now = Date.now()): { from: number; to: number } {
  const from = epochMs(q, 'from');
  const toParam = epochMs(q, 'to');
  const rangeText = q.range;
  if (rangeText !== undefined && rangeText !== '' && from !== undefined) {
    bad('give either range or from, not both');
  }
  const to = toParam ?? now;
  let start = from;
  if (start === undefined) {
    const span = rangeText ? parseDuration(rangeText) : DEFAULT_RANGE_MS;
    if (span === undefined) bad(`range must look like 15m, 1h, 24h or 7d, got "${rangeText}"`);
    start = to - span;
  }
  if (start >= to) bad(`from (${start}) must be before to (${to})`);
  return { from: start, to };
}

/** The QueryFilter of a request's query parameters. */
export function parseFilter(q: Query, now = Date.now()): QueryFilter {
  const filter: QueryFilter = parseRange(q, now);
  const service = text(q, 'service');
  const tool = text(q, 'tool');
  const signature = text(q, 'signature');
  const search = text(q, 'search');
  const action = text(q, 'action');
  if (action !== undefined && !ACTIONS.includes(action as LoopAction)) {
    bad(`action must be one of ${ACTIONS.join(', ')}, got "${action}"`);
  }
  if (service) filter.service = service;
  if (tool) filter.tool = tool;
  if (signature) filter.signature = signature;
  if (search) filter.search = search;
  if (action) filter.action = action as LoopAction;
  return filter;
}

/** Paging and sort parameters, checked against the sortable columns of the row type. */
export function parsePage(q: Query, sorts: readonly string[], maxLimit = 500): PageRequest {
  const page: PageRequest = {};
  const limit = int(q, 'limit', 1, maxLimit);
  const offset = int(q, 'offset', 0, 100_000_000);
  if (limit !== undefined) page.limit = limit;
  if (offset !== undefined) page.offset = offset;
  const sort = text(q, 'sort');
  if (sort !== undefined) {
    if (!sorts.includes(sort)) bad(`sort must be one of ${sorts.join(', ')}, got "${sort}"`);
    page.sort = sort;
  }
  const order = text(q, 'order');
  if (order !== undefined) {
    if (order !== 'asc' && order !== 'desc') bad(`order must be asc or desc, got "${order}"`);
    page.order = order;
  }
  return page;
}

/** Bucket widths the series endpoint picks from. */
export const BUCKETS_MS = [
  1_000, 5_000, 10_000, 30_000, 60_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 10_800_000,
  21_600_000, 43_200_000, 86_400_000,
];

/** Most points a series may have. */
export const MAX_SERIES_POINTS = 2000;

/** The bucket of a series: the `bucket` parameter, else the smallest width giving ≤ 120 points. */
export function parseBucket(q: Query, range: { from: number; to: number }): number {
  const span = range.to - range.from;
  const given = q.bucket;
  if (given !== undefined && given !== '') {
    const ms = parseDuration(given);
    if (ms === undefined || ms < 1000)
      bad(`bucket must be a duration of at least 1s (e.g. 1m, 1h), got "${given}"`);
    // points start at the bucket boundary at or before `from`
    if (Math.ceil((range.to - Math.floor(range.from / ms) * ms) / ms) > MAX_SERIES_POINTS)
      bad(`bucket ${given} gives more than ${MAX_SERIES_POINTS} points for this range`);
    return ms;
  }
  return BUCKETS_MS.find((b) => span / b <= 120) ?? Math.ceil(span / 120 / 86_400_000) * 86_400_000;
}
