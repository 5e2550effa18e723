import type { CounterSnapshot } from './types.js';

type Row = Record<string, unknown>;

/**
 * The `/metrics` counters from a store's counter rows (`Metric`, `Service`, `Tool`, `Axis`,
 * `Action`, `Reason` and a value column) and its halted-scope counts per service.
 */
export function counterSnapshot(
  rows: readonly Row[],
  halted: readonly Row[],
  valueKey: string,
  toNumber: (value: unknown) => number,
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
    else if (r.Metric === 'tool_calls') snap.toolCalls.push({ service, tool, action, value });
    else if (r.Metric === 'decisions') snap.decisions.push({ service, tool, axis, action, value });
    else if (r.Metric === 'rejected_spans') snap.rejectedSpans.push({ reason, value });
  }
  return snap;
}
