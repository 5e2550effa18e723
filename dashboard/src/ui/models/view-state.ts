import { signal } from '@preact/signals';
import type { LoopAction } from '../../api/types.js';
import type { Route } from '../routes.js';
import { ACTIONS, action, search, service, tool } from './filters.js';
import {
  customRangeProblem,
  PRESETS,
  type RangePreset,
  range,
  rangeParams,
  type TimeRange,
} from './range.js';
import { PAGE_SIZE, type TableState } from './table.js';

const DEFAULT_PRESET: RangePreset = '24h';
const DEFAULT_RANGE: TimeRange = { kind: 'preset', preset: DEFAULT_PRESET };

/** The range and filters as hash query parameters (defaults left out). */
export function viewParams(): Record<string, string> {
  const r = range.value;
  const out: Record<string, string> = {};
  if (r.kind === 'custom') {
    out.from = String(r.from);
    out.to = String(r.to);
  } else if (r.preset !== DEFAULT_PRESET) out.range = r.preset;
  if (service.value) out.service = service.value;
  if (tool.value) out.tool = tool.value;
  if (action.value) out.action = action.value;
  if (search.value) out.search = search.value;
  return out;
}

function rangeOf(params: URLSearchParams): TimeRange {
  const from = Number(params.get('from'));
  const to = Number(params.get('to'));
  // bounds the API would refuse (a fraction, before 1970) fall back to the default range
  if (params.has('from') && params.has('to') && customRangeProblem(from, to) === '') {
    return { kind: 'custom', from, to };
  }
  const preset = params.get('range');
  return PRESETS.includes(preset as RangePreset)
    ? { kind: 'preset', preset: preset as RangePreset }
    : DEFAULT_RANGE;
}

/** A list page's table, whose sort, order and page live in the hash of that page. */
interface BoundTable {
  table: TableState<string>;
  sort: string;
  /** The columns it can be sorted by. */
  sortable: readonly string[];
  /** The list the page belongs to: the signature of a sessions list ('' for all). */
  list: string;
}

type ListPage = 'hotspots' | 'sessions';

const tables = signal<Partial<Record<ListPage, BoundTable>>>({});
/** The route and parameters last navigated to, for a table bound after them. */
let applied: { route: Route; params: URLSearchParams } | undefined;

const listOf = (route: Route) => (route.page === 'sessions' ? (route.signature ?? '') : '');

function boundOf(route: Route): BoundTable | undefined {
  return route.page === 'hotspots' || route.page === 'sessions'
    ? tables.value[route.page]
    : undefined;
}

/** The set (non-empty) entries of hash parameters, in a fixed order, to compare two views. */
function viewKey(view: Record<string, string>): string {
  const set = Object.entries(view).filter(([, value]) => value !== '');
  return JSON.stringify(set.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The sort, order and page of the table of `route` as hash parameters (defaults left out), for a
 * link whose range and filters are `view` (default: the current ones). The page is only kept for
 * the list the table shows: the same signature with the same range and filters (the table's page
 * always belongs to the current filters, which reset it). Another signature's sessions, or the same
 * signature in another service, start at page 1.
 */
export function tableParams(
  route: Route,
  view: Record<string, string> = viewParams(),
): Record<string, string> {
  const bound = boundOf(route);
  if (!bound) return {};
  const { table } = bound;
  const out: Record<string, string> = {};
  if (table.sort.value !== bound.sort) out.sort = table.sort.value;
  if (table.order.value !== 'desc') out.order = table.order.value;
  const page = Math.floor(table.offset.value / PAGE_SIZE) + 1;
  const sameList = listOf(route) === bound.list && viewKey(view) === viewKey(viewParams());
  if (page > 1 && sameList) out.page = String(page);
  return out;
}

function applyTable(route: Route, params: URLSearchParams, bound = boundOf(route)): void {
  if (!bound) return;
  bound.list = listOf(route);
  const page = Number(params.get('page') ?? '1');
  const offset = Number.isSafeInteger(page) && page > 1 ? (page - 1) * PAGE_SIZE : 0;
  const order = params.get('order') === 'asc' ? 'asc' : 'desc';
  // a column it cannot be sorted by (an old bookmark, a typo) would make the API refuse the list
  const sort = params.get('sort') ?? '';
  bound.table.restore(bound.sortable.includes(sort) ? sort : bound.sort, order, offset);
}

/**
 * Keeps the sort, order and page of a list page's table in its hash (`sort` is the default; a
 * hash may only sort by one of `sortable`).
 */
export function bindTable<K extends string>(
  page: ListPage,
  table: TableState<K>,
  sort: K,
  sortable: readonly K[],
): void {
  const bound: BoundTable = {
    table: table as unknown as TableState<string>,
    sort,
    sortable,
    list: '',
  };
  if (applied?.route.page === page) applyTable(applied.route, applied.params, bound);
  tables.value = { ...tables.peek(), [page]: bound };
}

/**
 * Sets the range and filters from hash query parameters (absent ones to their defaults), and the
 * sort, order and page of `route`'s table.
 */
export function applyViewParams(params: URLSearchParams, route: Route): void {
  const next = rangeOf(params);
  const same = JSON.stringify(rangeParams(next)) === JSON.stringify(rangeParams(range.value));
  if (!same) range.value = next;
  service.value = params.get('service') ?? '';
  tool.value = params.get('tool') ?? '';
  const a = params.get('action') ?? '';
  action.value = (ACTIONS as readonly string[]).includes(a) ? (a as LoopAction) : '';
  search.value = params.get('search') ?? '';
  applied = { route, params };
  applyTable(route, params);
}
