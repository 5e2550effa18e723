import { createHash } from 'node:crypto';
import type { InsertSettings } from './executor.js';

/**
 * The `insert_deduplication_token` of an INSERT of otel_traces rows: a hash of their
 * (TraceId, SpanId) in order. A retry of the same spans carries the same token, so the tables'
 * deduplication window drops it even when it races its first copy (which the lookup of stored
 * spans in traces-in.sql cannot see before it commits), on Replicated* tables across replicas.
 * ClickHouse's own block hash is no substitute: for JSON input it is not stable (26.7 hashes
 * two JSONEachRow inserts of the same row with an empty string differently).
 */
export function spanIdsToken(rows: readonly Record<string, unknown>[]): InsertSettings {
  const hash = createHash('sha256');
  for (const r of rows) hash.update(`${String(r.TraceId)}/${String(r.SpanId)}\n`);
  return { insert_deduplication_token: `loopguard-spans-${hash.digest('hex')}` };
}
