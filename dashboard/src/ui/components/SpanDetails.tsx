import type { TimelineCall } from '../../api/types.js';
import { actionLabel, findingWhy, fmtClockMs, fmtInt, fmtMs } from '../format.js';
import { ActionBadge } from './ActionBadge.js';
import { TraceView } from './TraceView.js';

/** The explanation of a `loopguard.<action>` event; undefined for other events. */
function why(name: string, attributes: Record<string, string>): string | undefined {
  return name.startsWith('loopguard.') ? findingWhy(name.slice(10), attributes) : undefined;
}

/** Key/value pairs as a text table, sorted by key. Values are plain text, never HTML. */
export function AttributeTable({
  attributes,
  label,
}: {
  attributes: Record<string, string>;
  label: string;
}) {
  const entries = Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return <p class="muted small">no attributes</p>;
  return (
    <table class="kv" aria-label={label}>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The selected call: its loopguard decision, attributes and events as text. */
export function SpanDetails(props: {
  call: TimelineCall;
  /** Index of the call in the session. */
  index: number;
  /** The call is the first / last of the page (no step back / forward). */
  first: boolean;
  last: boolean;
  onStep: (delta: number) => void;
}) {
  const { call, index, onStep } = props;
  return (
    <aside class="details" aria-label="Span details" data-testid="span-details">
      <header class="details-head">
        <h2>
          Call #{fmtInt(index + 1)}{' '}
          <ActionBadge action={call.action} label={actionLabel(call.action, call.shadow)} />
          {call.attributes['loopguard.detected_by'] === 'dashboard' && (
            <span
              class="badge badge-detected"
              title="decided by the dashboard from this span; the agent runs without loopguard and was not told"
            >
              detected by dashboard (advisory)
            </span>
          )}
        </h2>
        <span class="stepper">
          <button type="button" disabled={props.first} onClick={() => onStep(-1)}>
            ‹ prev
          </button>
          <button type="button" disabled={props.last} onClick={() => onStep(1)}>
            next ›
          </button>
        </span>
      </header>
      <dl class="facts">
        <dt>tool</dt>
        <dd>{call.tool}</dd>
        <dt>signature</dt>
        <dd>
          <code>{call.signature}</code>
        </dd>
        <dt>streak / count</dt>
        <dd>
          {fmtInt(call.streak)} / {fmtInt(call.count)}
        </dd>
        {call.axis && (
          <>
            <dt>axis</dt>
            <dd>
              {call.axis}
              {call.level !== undefined && ` (nudge level ${call.level})`}
            </dd>
          </>
        )}
        {call.shadow && (
          <>
            <dt>mode</dt>
            <dd data-testid="shadow-mode">shadow: decided and recorded, not applied</dd>
          </>
        )}
        <dt>outcome</dt>
        <dd class={`outcome-${call.outcome}`}>{call.outcome}</dd>
        <dt>time</dt>
        <dd>
          {fmtClockMs(call.time)} · {fmtMs(call.durationMs)}
        </dd>
        <dt>span</dt>
        <dd>
          <code>{call.spanId}</code>
        </dd>
      </dl>
      <h3>Events ({call.events.length})</h3>
      {call.events.length === 0 && <p class="muted small">no events</p>}
      {call.events.map((ev, i) => (
        <section key={`${ev.name}-${i}`} class="event">
          <h4>
            <span class={`event-name event-${ev.name.split('.').pop()}`}>{ev.name}</span>{' '}
            <span class="muted small">{fmtClockMs(ev.time)}</span>
          </h4>
          {why(ev.name, ev.attributes) && (
            <p class="finding-why" data-testid="finding-why">
              {why(ev.name, ev.attributes)}
            </p>
          )}
          {ev.attributes['loopguard.message'] && (
            <blockquote class="finding-message" title="the text the model read">
              {ev.attributes['loopguard.message']}
            </blockquote>
          )}
          <AttributeTable attributes={ev.attributes} label={`${ev.name} attributes`} />
        </section>
      ))}
      <h3>Attributes</h3>
      <AttributeTable attributes={call.attributes} label="Span attributes" />
      <TraceView key={call.traceId} traceId={call.traceId} spanId={call.spanId} />
    </aside>
  );
}
