import { REJECT_REASONS } from '../otlp/index.js';
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

/** Series one family shows before the rest fold into one series whose labels all read `other`. */
export const MAX_SERIES_PER_FAMILY = 2000;

/** The label value of the series that sums a family's series past its bound. */
export const OTHER = 'other';

type Sample = [Record<string, string>, number];

/**
 * The labels of a series: `shadow="true"` for shadow-mode calls (enforced ones have no such
 * label), `detected_by` when the dashboard decided its calls.
 */
function seriesLabels(
  pairs: Record<string, string>,
  x: { shadow?: true; detectedBy?: string },
): Record<string, string> {
  const out = { ...pairs };
  if (x.shadow) out.shadow = 'true';
  if (x.detectedBy) out.detected_by = x.detectedBy;
  return out;
}

/**
 * The series of one family that `/metrics` shows by their own labels: at most `max`, the largest
 * first, then in the order they appear. A series once shown stays shown for the life of the
 * process, so the `other` series only ever grows and both stay monotonic counters.
 */
class SeriesBudget {
  private readonly shown = new Set<string>();

  constructor(private readonly max: number) {}

  /** The samples to print: the shown series, then `other` (labels rendered, values summed). */
  fold(samples: readonly Sample[]): [string, number][] {
    const keyed = samples.map(([l, v]) => [labels(l), v, l] as const);
    if (this.shown.size < this.max) {
      const fresh = keyed.filter(([key]) => !this.shown.has(key));
      fresh.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      for (const [key] of fresh) {
        if (this.shown.size >= this.max) break;
        this.shown.add(key);
      }
    }
    const out = new Map<string, number>();
    let other: string | undefined;
    for (const [key, value, l] of keyed) {
      let at = key;
      if (!this.shown.has(key)) {
        other ??= labels(Object.fromEntries(Object.keys(l).map((k) => [k, OTHER])));
        at = other;
      }
      out.set(at, (out.get(at) ?? 0) + value);
    }
    return [...out];
  }
}

/** Options of `MetricsExposition`. */
export interface MetricsExpositionOptions {
  /** Series per family shown by their own labels. Default MAX_SERIES_PER_FAMILY. */
  maxSeriesPerFamily?: number;
}

/**
 * Renders counter snapshots as Prometheus text (contract section 4), each family bounded to
 * `maxSeriesPerFamily` series plus one `other` series, whatever the number of services and tools
 * the spans name. One per server: it remembers which series it has shown.
 */
export class MetricsExposition {
  private readonly budgets = new Map<string, SeriesBudget>();
  private readonly max: number;

  constructor(options: MetricsExpositionOptions = {}) {
    this.max = options.maxSeriesPerFamily ?? MAX_SERIES_PER_FAMILY;
  }

  /** The exposition text of one snapshot. */
  render(c: CounterSnapshot): string {
    const out: string[] = [];
    const family = (name: string, help: string, samples: readonly Sample[]) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      let budget = this.budgets.get(name);
      if (!budget) {
        budget = new SeriesBudget(this.max);
        this.budgets.set(name, budget);
      }
      for (const [l, v] of budget.fold(samples)) out.push(`${name}${l} ${v}`);
    };
    family(
      'loopguard_tool_calls_total',
      'Tool calls stored by the dashboard, by service, tool and strongest loopguard action.',
      c.toolCalls.map((x) => [
        seriesLabels({ service: x.service, tool: x.tool, action: x.action }, x),
        x.value,
      ]),
    );
    family(
      'loopguard_decisions_total',
      'Loopguard findings (nudge, warn, block, halt) by service, tool, axis and action.',
      c.decisions.map((x) => [
        seriesLabels({ service: x.service, tool: x.tool, axis: x.axis, action: x.action }, x),
        x.value,
      ]),
    );
    family(
      'loopguard_halted_sessions_total',
      'Sessions (scopes) that reached an enforced block or halt decision, by service.',
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
    const d = c.detection;
    if (d) {
      family(
        'loopguard_detection_early_settled_scopes_total',
        'Scopes the dashboard decided before they were quiet, because its pending calls reached their bound.',
        [[{}, d.earlySettledScopes]],
      );
      family(
        'loopguard_detection_late_calls_total',
        'Tool calls of agents without loopguard that arrived after later calls of their scope were decided.',
        [[{}, d.lateCalls]],
      );
      family(
        'loopguard_detection_redecided_calls_total',
        'Stored tool calls whose decision the dashboard changed because a late call came before them.',
        [[{}, d.redecidedCalls]],
      );
      family(
        'loopguard_detection_forgotten_scopes_total',
        'Settled scopes the dashboard stopped remembering (bounds on settled scopes and calls); a late call there re-decides nothing.',
        [[{}, d.forgottenScopes]],
      );
      family(
        'loopguard_detection_covered_calls_total',
        "Tool-call spans of another instrumentation around (or inside) loopguard's own span of the same call: not decided again.",
        [[{}, d.coveredCalls]],
      );
      out.push(
        '# HELP loopguard_detection_pending_calls Tool calls held until their scope settles.',
        '# TYPE loopguard_detection_pending_calls gauge',
        `loopguard_detection_pending_calls ${d.pendingCalls}`,
      );
    }
    return `${out.join('\n')}\n`;
  }
}
