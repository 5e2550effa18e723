import { DuckDBInstance } from '@duckdb/node-api';
import type { Hotspot, LoopAction, Page, PageRequest, QueryFilter } from '../src/api/types.js';
import type { SpanRecord } from '../src/otlp/span.js';
import { normalizePage } from '../src/store/common/index.js';
import type { Reader } from '../src/store/duckdb/read/sql.js';
import { HOTSPOT_SORTS, openDuckDbStore } from '../src/store/index.js';
import { makeToolSpan } from './span-fixtures.js';

// Agent-like spans and the helpers the hotspot page tests share.

/** A minute, an hour and the fixtures' first hour, in ms. */
export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const T0 = Date.UTC(2026, 2, 1);

/** mulberry32: the same spans on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Twelve hours of calls as agents make them: a few signatures called all day, some called a few
 * times, and a long tail called once; two services, three tools, every action.
 */
export function agentSpans(): SpanRecord[] {
  const next = random(7);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const actions: LoopAction[] = ['allow', 'allow', 'allow', 'nudge', 'warn', 'block', 'halt'];
  const spans: SpanRecord[] = [];
  const calls = (name: string, n: number, fromMs: number, spanMs: number) => {
    const service = pick(['svc-0', 'svc-1']);
    const tool = pick(['grep', 'read_file', 'fetch']);
    for (let i = 0; i < n; i++) {
      spans.push(
        makeToolSpan({
          tool,
          service,
          signature: `${tool}:${name}`,
          action: pick(actions),
          streak: 1 + Math.floor(next() * 9),
          count: 1 + Math.floor(next() * 5),
          durationMs: Math.floor(next() * 500),
          ...(next() < 0.3 ? { args: `{"q":"${name}"}` } : {}),
          scope: `run-${Math.floor(next() * 40)}`,
          timeMs: fromMs + Math.floor(next() * spanMs),
        }),
      );
    }
  };
  for (let i = 0; i < 12; i++) calls(`heavy-${i}`, 20 + Math.floor(next() * 40), T0, 12 * HOUR);
  for (let i = 0; i < 80; i++) {
    calls(`medium-${i}`, 2 + Math.floor(next() * 8), T0 + Math.floor(next() * 9) * HOUR, 3 * HOUR);
  }
  for (let i = 0; i < 400; i++) calls(`tail-${i}`, 1, T0, 12 * HOUR);
  return spans;
}

/** Writes agentSpans into a new store file at `path` (in batches of 700, as an exporter sends). */
export async function writeAgentStore(path: string): Promise<void> {
  const store = await openDuckDbStore({ path });
  const spans = agentSpans();
  for (let i = 0; i < spans.length; i += 700) await store.insert(spans.slice(i, i + 700));
  await store.close();
}

/** A reader over a closed store's file, as the store reads it. */
export async function fileReader(path: string) {
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  const read: Reader = async (sql, params) =>
    (await conn.runAndReadAll(sql, params as never)).getRowObjectsJS();
  const close = () => {
    conn.closeSync();
    instance.closeSync();
  };
  return { read, conn, close };
}

/** The range parameters queryHotspots hands to its page functions. */
export function rangeOf(filter: QueryFilter) {
  return {
    fullFrom: BigInt(Math.ceil(filter.from / HOUR) * HOUR),
    fullTo: BigInt(Math.floor(filter.to / HOUR) * HOUR),
    from: BigInt(filter.from),
    to: BigInt(filter.to),
  };
}

/** Rows with the same hotspots in the same order; `sampleArgs` may be any call's, or none. */
export const comparable = (rows: Hotspot[]) =>
  rows.map(({ sampleArgs, ...row }) => ({ ...row, sampled: sampleArgs !== undefined }));

/** The signature agentSpans gives the calls named `name` (their tool is drawn at random). */
function signatureOf(name: string): string {
  const span = agentSpans().find((s) => s.attributes['loopguard.signature']?.endsWith(`:${name}`));
  if (!span) throw new Error(`no calls named ${name}`);
  return span.attributes['loopguard.signature']!;
}

/** Ranges of the agent spans' day. */
export const ranges: [string, QueryFilter][] = [
  ['the whole day', { from: T0, to: T0 + 12 * HOUR }],
  ['partial hours at both ends', { from: T0 + 17 * MIN, to: T0 + 9 * HOUR + 5 * MIN }],
  ['three hours in the middle', { from: T0 + 4 * HOUR, to: T0 + 7 * HOUR }],
];
/** Filters of the hotspot page. */
export const filters: Omit<QueryFilter, 'from' | 'to'>[] = [
  {},
  { service: 'svc-1' },
  { tool: 'grep' },
  { signature: signatureOf('heavy-3') },
  { signature: signatureOf('medium-7') },
  { action: 'nudge' },
  { service: 'svc-0', action: 'warn' },
];
/** Pages of the hotspot page. */
export const pages = [
  { limit: 5 },
  { offset: 3, limit: 4 },
  { limit: 50 },
  { offset: 40, limit: 30 },
];

/** A page function of queryHotspots (prunedPage, exactPage). */
type PageFn = (
  read: Reader,
  filter: QueryFilter,
  p: ReturnType<typeof normalizePage>,
  range: ReturnType<typeof rangeOf>,
) => Promise<Page<Hotspot> | undefined>;

/** A page function over a closed store's file, called as queryHotspots calls it. */
export async function pageOn(
  fn: PageFn,
  path: string,
  filter: QueryFilter,
  page: PageRequest = { limit: 5 },
): Promise<Page<Hotspot> | undefined> {
  const { read, close } = await fileReader(path);
  try {
    return await fn(read, filter, normalizePage(page, HOTSPOT_SORTS, 'calls'), rangeOf(filter));
  } finally {
    close();
  }
}
