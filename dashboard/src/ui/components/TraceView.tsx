import { useSignal } from '@preact/signals';
import type { TraceSpan } from '../../api/types.js';
import { fmtMs } from '../format.js';
import { apiUrl } from '../models/api.js';
import { useResource } from '../models/use-resource.js';
import { offsetText, traceStart } from '../trace-offsets.js';
import { ErrorNotice } from './ErrorNotice.js';

function TraceSpans({ traceId, spanId }: { traceId: string; spanId: string }) {
  const trace = useResource<TraceSpan[]>(() => apiUrl(`traces/${encodeURIComponent(traceId)}`), {
    live: false,
    debounceMs: 0,
  });
  const s = trace.state.value;
  if (s.status === 'error') return <ErrorNotice error={s.error} />;
  if (!s.data) return <p class="muted small">Loading…</p>;
  if (s.data.length === 0) {
    return (
      <p class="muted small" data-testid="trace-empty">
        No spans of this trace are stored (retention may have removed them).
      </p>
    );
  }
  const t0 = traceStart(s.data);
  return (
    <ol class="trace-spans">
      {s.data.map((span) => (
        <li
          key={span.spanId}
          class={`${span.statusCode === 'Error' ? 'error' : ''}${span.spanId === spanId ? ' current' : ''}`}
        >
          <span>{span.name}</span>
          <span class="muted small">
            {[offsetText(span.start, t0), fmtMs(span.durationMs), span.serviceName]
              .filter(Boolean)
              .join(' · ')}
            {span.statusCode === 'Error' && ` · ${span.statusMessage || 'error'}`}
          </span>
        </li>
      ))}
    </ol>
  );
}

/** The trace that holds a call (`spanId` highlighted), loaded on demand. */
export function TraceView({ traceId, spanId }: { traceId: string; spanId: string }) {
  const open = useSignal(false);
  return (
    <section class="trace">
      <h3>
        Trace <code class="small">{traceId}</code>
      </h3>
      {open.value ? (
        <TraceSpans traceId={traceId} spanId={spanId} />
      ) : (
        <button
          type="button"
          onClick={() => {
            open.value = true;
          }}
        >
          Show spans of this trace
        </button>
      )}
    </section>
  );
}
