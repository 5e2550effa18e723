import { REJECT_REASONS } from '../otlp/model.js';
import type { CounterSnapshot } from '../store/index.js';

/** Content-Type of the Prometheus text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Escapes a label value: backslash, double quote and line feed. */
export function escapeLabel(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('"', '\\"');
}

function labels(pairs: Record<string, string>): string {
  const body = Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',');
  return body ? `{${body}}` : '';
}

/** Renders the counter snapshot as Prometheus text (contract section 4). */
export function renderMetrics(c: CounterSnapshot): string {
  const out: string[] = [];
  const family = (name: string, help: string, samples: [Record<string, string>, number][]) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
    for (const [l, v] of samples) out.push(`${name}${labels(l)} ${v}`);
  };
  family(
    'loopguard_tool_calls_total',
    'Tool calls stored by the dashboard, by service, tool and strongest loopguard action.',
    c.toolCalls.map((x) => [{ service: x.service, tool: x.tool, action: x.action }, x.value]),
  );
  family(
    'loopguard_decisions_total',
    'Loopguard findings (nudge, warn, block, halt) by service, tool, axis and action.',
    c.decisions.map((x) => [
      { service: x.service, tool: x.tool, axis: x.axis, action: x.action },
      x.value,
    ]),
  );
  family(
    'loopguard_halted_sessions_total',
    'Sessions (scopes) that reached a block or halt decision, by service.',
    c.haltedSessions.map((x) => [{ service: x.service }, x.value]),
  );
  family('loopguard_ingested_spans_total', 'Spans accepted by the OTLP receiver and stored.', [
    [{}, c.ingestedSpans],
  ]);
  // every reason from the start, at 0: increase() cannot see a series appear with its first count
  const rejected = new Map<string, number>(REJECT_REASONS.map((r) => [r, 0]));
  for (const x of c.rejectedSpans) rejected.set(x.reason, x.value);
  family(
    'loopguard_rejected_spans_total',
    'Spans of accepted requests refused by the OTLP receiver (ids), by reason.',
    [...rejected].map(([reason, value]) => [{ reason }, value]),
  );
  return `${out.join('\n')}\n`;
}
