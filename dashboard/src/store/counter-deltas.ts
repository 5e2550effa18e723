import { deriveFields, findingsOf, type SpanFields } from './span-fields.js';
import type { SpanRecord } from './types.js';

/** Counter increments of one batch of spans (contract section 4), keyed and summed. */
export interface CounterDeltas {
  toolCalls: Map<string, { service: string; tool: string; action: string; value: number }>;
  decisions: Map<
    string,
    { service: string; tool: string; axis: string; action: string; value: number }
  >;
  /** Scopes with a block or halt decision in this batch, by service. */
  haltedScopes: Map<string, { service: string; scope: string }>;
  ingested: number;
}

/** Derives the fields of every span and the counter increments of the batch. */
export function computeDeltas(spans: readonly SpanRecord[]): {
  fields: SpanFields[];
  deltas: CounterDeltas;
} {
  const deltas: CounterDeltas = {
    toolCalls: new Map(),
    decisions: new Map(),
    haltedScopes: new Map(),
    ingested: spans.length,
  };
  const fields: SpanFields[] = [];
  for (const span of spans) {
    const f = deriveFields(span);
    fields.push(f);
    if (!f.isCall) continue;
    const service = span.serviceName;
    const callKey = `${service}\u0000${f.tool}\u0000${f.action}`;
    const call = deltas.toolCalls.get(callKey);
    if (call) call.value++;
    else deltas.toolCalls.set(callKey, { service, tool: f.tool, action: f.action, value: 1 });
    for (const finding of findingsOf(span, f)) {
      const key = `${service}\u0000${f.tool}\u0000${finding.axis}\u0000${finding.action}`;
      const d = deltas.decisions.get(key);
      if (d) d.value++;
      else deltas.decisions.set(key, { service, tool: f.tool, ...finding, value: 1 });
    }
    if (f.actionRank >= 3 && f.scope !== '') {
      deltas.haltedScopes.set(`${service}\u0000${f.scope}`, { service, scope: f.scope });
    }
  }
  return { fields, deltas };
}
