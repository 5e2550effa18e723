import { fmtClock } from '../format.js';
import { lastUpdated, live, POLL_MS, tick } from '../models/live.js';

/** Pauses or resumes polling; shows when data last arrived. */
export function LiveToggle() {
  const on = live.value;
  const updated = lastUpdated.value;
  return (
    <div class="live">
      <button
        type="button"
        class={on ? 'live-on' : 'live-off'}
        aria-pressed={on}
        title={
          on ? `Refreshing every ${POLL_MS / 1000} s — click to pause` : 'Paused — click to resume'
        }
        onClick={() => {
          live.value = !on;
        }}
      >
        <span class="live-dot" aria-hidden="true" />
        {on ? 'Live' : 'Paused'}
      </button>
      <button type="button" class="icon" title="Refresh now" onClick={() => tick.value++}>
        ↻<span class="sr-only">Refresh now</span>
      </button>
      {updated !== undefined && <span class="muted small">updated {fmtClock(updated)}</span>}
    </div>
  );
}
