import { signal } from '@preact/signals';
import { useMemo } from 'preact/hooks';
import type { SessionDetail } from '../../store/types.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { SessionHeader } from '../components/SessionHeader.js';
import { SpanDetails } from '../components/SpanDetails.js';
import { TimelineRuns } from '../components/TimelineRuns.js';
import { fmtInt } from '../format.js';
import { apiUrl } from '../models/api.js';
import { hrefOf, route } from '../models/route.js';
import { useResource } from '../models/use-resource.js';
import { groupRuns } from '../timeline-runs.js';

const scope = () => (route.value.page === 'session' ? route.value.scope : undefined);
/** Index of the picked call, or null. */
const selected = signal<number | null>(null);
let shownScope: string | undefined;

/** One session: its calls in order, runs of identical calls as bars, details of a picked call. */
export function SessionTimeline() {
  const current = scope();
  if (current !== shownScope) {
    shownScope = current;
    selected.value = null;
  }
  const detail = useResource<SessionDetail>(() => {
    const s = scope();
    return s === undefined ? null : apiUrl(`sessions/${encodeURIComponent(s)}`);
  });
  const state = detail.state.value;
  const fresh = state.data && state.data.session.scope === current ? state.data : undefined;
  const runs = useMemo(() => (fresh ? groupRuns(fresh.calls) : []), [fresh]);
  const calls = fresh?.calls ?? [];
  const pick = selected.value;
  const call = pick === null ? undefined : calls[pick];

  return (
    <div class="page">
      <p class="crumbs">
        <a href={hrefOf({ page: 'sessions' })}>← Sessions</a>
      </p>
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {!fresh && state.status === 'loading' && <p class="muted">Loading…</p>}
      {fresh && (
        <>
          <SessionHeader session={fresh.session} />
          <div class="timeline-layout">
            <section class="panel" aria-label="Timeline">
              <header class="panel-head">
                <h2>Timeline</h2>
                <span class="muted small">
                  {fmtInt(runs.length)} runs of {fmtInt(calls.length)} calls · click a bar or marker
                  for details
                </span>
              </header>
              <TimelineRuns
                runs={runs}
                total={Math.max(1, calls.length)}
                selected={pick}
                onSelect={(i) => {
                  selected.value = i;
                }}
              />
              {fresh.session.calls > calls.length && (
                <p class="muted small">
                  Showing the first {fmtInt(calls.length)} of {fmtInt(fresh.session.calls)} calls.
                </p>
              )}
            </section>
            {call && pick !== null ? (
              <SpanDetails
                call={call}
                index={pick}
                total={calls.length}
                onStep={(d) => {
                  const next = pick + d;
                  if (next >= 0 && next < calls.length) selected.value = next;
                }}
              />
            ) : (
              <aside class="details placeholder muted">
                Select a bar or marker to see the call's attributes and events.
              </aside>
            )}
          </div>
        </>
      )}
    </div>
  );
}
