import { effect, signal } from '@preact/signals';
import { useMemo } from 'preact/hooks';
import type { LoopSpend, SessionDetail } from '../../api/types.js';
import { ARGS_ATTRIBUTE, CaptureHint } from '../components/CallName.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { Pager } from '../components/Pager.js';
import { RunTree } from '../components/RunTree.js';
import { SessionHeader } from '../components/SessionHeader.js';
import { SpanDetails } from '../components/SpanDetails.js';
import { TimelineRuns } from '../components/TimelineRuns.js';
import { fmtInt, plural } from '../format.js';
import { apiUrl } from '../models/api.js';
import { linkTo, route } from '../models/route.js';
import { useResource } from '../models/use-resource.js';
import { listOfSession, type Route } from '../routes.js';
import { groupRuns } from '../timeline-runs.js';

/** Calls fetched per page of a session's timeline (the server allows up to 5000). */
export const CALLS_PER_PAGE = 2000;

const scope = () => (route.value.page === 'session' ? route.value.scope : undefined);
/** First call of the page shown. */
const offset = signal(0);
/** Index of the picked call within the page, or null. */
const selected = signal<number | null>(null);

function sessionUrl(): string | null {
  const s = scope();
  return s === undefined
    ? null
    : apiUrl('session', { scope: s, limit: CALLS_PER_PAGE, offset: offset.value });
}

effect(() => {
  scope();
  offset.value = 0;
  selected.value = null;
});

effect(() => {
  offset.value;
  selected.value = null;
});

/** One session: its calls in order, runs of identical calls as bars, details of a picked call. */
export function SessionTimeline() {
  const detail = useResource<SessionDetail>(sessionUrl);
  // the session's whole time span: its header aggregates all of its calls too
  const spend = useResource<LoopSpend>(() => {
    const s = scope();
    const head = detail.state.value.data?.session;
    return s === undefined || head === undefined || head.scope !== s
      ? null
      : apiUrl('spend', { scope: s, from: head.start, to: head.end + 1 });
  });
  const state = detail.state.value;
  // Only the page asked for: an older page or session would pair its calls with the wrong offset.
  const fresh = state.url === sessionUrl() ? state.data : undefined;
  const first = offset.value;
  const runs = useMemo(() => (fresh ? groupRuns(fresh.calls, first) : []), [fresh, first]);
  const calls = fresh?.calls ?? [];
  const pick = selected.value;
  const call = pick === null ? undefined : calls[pick];
  const r = route.value;
  const back: Route = r.page === 'session' ? listOfSession(r) : { page: 'sessions' };

  return (
    <div class="page">
      <p class="crumbs">
        <a href={linkTo(back)}>← Sessions</a>
        {back.page === 'sessions' && back.signature && (
          <span class="muted">
            {' '}
            of signature <code>{back.signature}</code>
          </span>
        )}
      </p>
      {state.status === 'error' && <ErrorNotice error={state.error} />}
      {!fresh && state.status !== 'error' && <p class="muted">Loading…</p>}
      {fresh && (
        <SessionHeader
          session={fresh.session}
          shadow={fresh.calls.some((c) => c.shadow)}
          spent={spend.state.value.data?.total}
        />
      )}
      {fresh && calls.length === 0 && (
        <p class="empty-note muted" data-testid="timeline-empty">
          No calls of this session {first > 0 ? `from call ${fmtInt(first + 1)} on ` : ''}are stored
          (retention may have removed them).{' '}
          {first > 0 && (
            <button
              type="button"
              class="link"
              onClick={() => {
                offset.value = 0;
              }}
            >
              first call
            </button>
          )}
        </p>
      )}
      {fresh && calls.length > 0 && (
        <div class="timeline-layout">
          <section class="panel" aria-label="Timeline">
            <header class="panel-head">
              <h2>Timeline</h2>
              <span class="muted small">
                {plural(runs.length, 'run')} of {plural(calls.length, 'call')} · click a bar or
                marker for details
              </span>
            </header>
            <TimelineRuns
              runs={runs}
              first={first}
              total={Math.max(1, calls.length)}
              selected={pick}
              onSelect={(i) => {
                selected.value = i;
              }}
            />
            {!calls.some((c) => c.attributes[ARGS_ATTRIBUTE]) && <CaptureHint />}
            {fresh.session.calls > CALLS_PER_PAGE && (
              <Pager
                offset={offset}
                limit={CALLS_PER_PAGE}
                total={fresh.session.calls}
                noun="call"
              />
            )}
          </section>
          {call && pick !== null ? (
            <SpanDetails
              call={call}
              index={first + pick}
              first={pick === 0}
              last={pick + 1 >= calls.length}
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
      )}
      {fresh && calls.length > 0 && <RunTree key={`${scope()}|${first}`} calls={calls} />}
    </div>
  );
}
