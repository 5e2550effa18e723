import type { CounterSnapshot } from '../types.js';
import { toNumber } from './rows.js';

type Row = Record<string, unknown>;

/** The counter rows (`Metric`) of calls recorded in shadow mode (`loopguard.shadow`). */
export const SHADOW_TOOL_CALLS = 'shadow_tool_calls';
/** The counter rows (`Metric`) of findings recorded in shadow mode. */
export const SHADOW_DECISIONS = 'shadow_decisions';

/** The rejection counts (reason → spans) of several requests, summed. */
export function sumRejected(counts: Iterable<ReadonlyMap<string, number>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const rejected of counts)
    for (const [reason, n] of rejected) out.set(reason, (out.get(reason) ?? 0) + n);
  return out;
}

/**
 * The `/metrics` counters from a store's counter rows (`Metric`, `Service`, `Tool`, `Axis`,
 * `Action`, `Reason` and a value column) and its halted-scope counts per service.
 */
export function counterSnapshot(
  rows: readonly Row[],
  halted: readonly Row[],
  valueKey: string,
): CounterSnapshot {
  const snap: CounterSnapshot = {
    toolCalls: [],
    decisions: [],
    haltedSessions: halted.map((h) => ({ service: String(h.service), value: toNumber(h.n) })),
    ingestedSpans: 0,
    rejectedSpans: [],
  };
  for (const r of rows) {
    const [service, tool, axis, action, reason] = [
      r.Service,
      r.Tool,
      r.Axis,
      r.Action,
      r.Reason,
    ].map(String) as [string, string, string, string, string];
    const value = toNumber(r[valueKey]);
    if (r.Metric === 'ingested_spans') snap.ingestedSpans += value;
    else if (r.Metric === 'tool_calls' || r.Metric === SHADOW_TOOL_CALLS) {
      const row: CounterSnapshot['toolCalls'][number] = { service, tool, action, value };
      if (r.Metric === SHADOW_TOOL_CALLS) row.shadow = true;
      if (reason) row.detectedBy = reason;
      snap.toolCalls.push(row);
    } else if (r.Metric === 'decisions' || r.Metric === SHADOW_DECISIONS) {
      const row: CounterSnapshot['decisions'][number] = { service, tool, axis, action, value };
      if (r.Metric === SHADOW_DECISIONS) row.shadow = true;
      if (reason) row.detectedBy = reason;
      snap.decisions.push(row);
    } else if (r.Metric === 'rejected_spans') snap.rejectedSpans.push({ reason, value });
  }
  return snap;
}
