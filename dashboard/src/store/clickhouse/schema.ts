import { readFileSync } from 'node:fs';

// The .sql files live in src/store/clickhouse/; this resolves from src/store/clickhouse/*.ts
// (tests) and from dist/store/clickhouse/*.js (built) alike, both two levels below the package.
const SQL_DIR = new URL('../../../src/store/clickhouse/', import.meta.url);

/** Reads one shipped .sql file. */
export function readSql(name: string): string {
  return readFileSync(new URL(name, SQL_DIR), 'utf8');
}

/**
 * The derived-fields SELECT over otel_traces (derive.sql) without its comments, or over `source`
 * (a FROM item with otel_traces' columns, such as `overlaidSpans`).
 */
export function deriveSql(source = 'otel_traces'): string {
  const sql = stripComments(readSql('derive.sql')).trim();
  return source === 'otel_traces' ? sql : sql.replace(/FROM otel_traces$/, () => `FROM ${source}`);
}

/** The dashboard's decisions of stored spans (decisions.sql), read over otel_traces. */
export const DECISIONS = 'loopguard_decisions';

const EVENT_COLUMNS = ['Events.Timestamp', 'Events.Name', 'Events.Attributes'];

/**
 * otel_traces as a FROM item in which a span with a row in loopguard_decisions has its newest
 * row's attributes and events in place of its own; the others read as stored (a span decided
 * before the table existed carries its decision in otel_traces). `bounds` are conditions on
 * Timestamp or TraceId, applied to both sides so the join reads only the decisions of those spans;
 * the caller binds their parameters.
 */
export function overlaidSpans(bounds: readonly string[]): string {
  const cond = bounds.length ? `WHERE ${bounds.join(' AND ')}` : '';
  const cols = ['SpanAttributes', ...EVENT_COLUMNS].map((c) => `\`${c}\``);
  // LEFT ANY JOIN: one decision row per span (GROUP BY); a span without one gets the defaults
  // (Decided false) and keeps its own maps
  return `(SELECT t.* REPLACE (${cols.map((c) => `if(d.Decided, d.${c}, t.${c}) AS ${c}`).join(', ')})
    FROM (SELECT * FROM otel_traces ${cond}) AS t
    LEFT ANY JOIN (SELECT Timestamp, TraceId, SpanId, true AS Decided,
        ${cols.map((c) => `argMax(${c}, Version) AS ${c}`).join(', ')}
      FROM ${DECISIONS} ${cond} GROUP BY Timestamp, TraceId, SpanId) AS d
    USING (Timestamp, TraceId, SpanId))`;
}

function stripComments(sql: string): string {
  return sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');
}

/** Splits a file into statements (`;` at a line end) and inlines `{{derive}}`. */
export function statements(sql: string, derive = deriveSql()): string[] {
  return stripComments(sql)
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => s.replaceAll('{{derive}}', derive));
}

/**
 * The table spans are inserted into (traces-in.sql): it passes each (TraceId, SpanId) on into
 * otel_traces once, so a re-sent span is neither stored nor counted again.
 */
export const TRACES_IN = 'loopguard_traces_in';

/**
 * Every DDL statement of the store, in order: otel_traces and its way in, counters and their
 * views, the time-ordered copy of the calls, rollups, the dashboard's decisions.
 */
export function schemaStatements(): string[] {
  return [
    'otel-traces.sql',
    'traces-in.sql',
    'counters.sql',
    'calls.sql',
    'rollups.sql',
    'decisions.sql',
  ].flatMap((f) => statements(readSql(f)));
}

/** The table of calls in time order (calls.sql), read for the partial minutes of a range. */
export const CALLS = 'loopguard_calls';

/** A rollup view: its target table and the SELECT that fills it, with `{{derive}}` unexpanded. */
export interface RollupView {
  target: string;
  select: string;
}

/**
 * The materialized views of rollups.sql (or of `file`: calls.sql), for re-filling a minute after
 * deleteBefore or a re-decision.
 */
export function rollupViews(file = 'rollups.sql'): RollupView[] {
  const out: RollupView[] = [];
  for (const s of statements(readSql(file), '{{derive}}')) {
    const m = /^CREATE MATERIALIZED VIEW IF NOT EXISTS \w+ TO (\w+) AS\s+(SELECT[\s\S]+)$/.exec(s);
    if (m) out.push({ target: m[1] as string, select: m[2] as string });
  }
  return out;
}

/** The view of `views` (rollups.sql's) filling `target`. */
export function rollupView(views: readonly RollupView[], target: string): RollupView {
  const v = views.find((r) => r.target === target);
  if (!v) throw new Error(`rollups.sql has no view into ${target}`);
  return v;
}
