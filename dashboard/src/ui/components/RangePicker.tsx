import { useSignal } from '@preact/signals';
import { fmtTime, toLocalInput } from '../format.js';
import { customRangeProblem, PRESETS, range, rangeBounds } from '../models/range.js';

/**
 * Preset windows (15m/1h/24h/7d) and a custom from/to range. With `disabledNote` (a page the
 * range does not apply to) the buttons are disabled, still showing the range the lists use, and
 * the note says why (`title` in full).
 */
export function RangePicker({ disabledNote }: { disabledNote?: { text: string; title: string } }) {
  const editing = useSignal(false);
  const from = useSignal('');
  const to = useSignal('');
  /** Why Apply was refused, shown until the next try. */
  const problem = useSignal('');
  const current = range.value;

  const openCustom = () => {
    const bounds = rangeBounds(current);
    from.value = toLocalInput(bounds.from);
    to.value = toLocalInput(bounds.to);
    editing.value = !editing.value;
    problem.value = '';
  };
  const apply = (e: Event) => {
    e.preventDefault();
    const f = new Date(from.value).getTime();
    const t = new Date(to.value).getTime();
    problem.value = customRangeProblem(f, t);
    if (!problem.value) {
      range.value = { kind: 'custom', from: f, to: t };
      editing.value = false;
    }
  };

  return (
    <div class="range-picker">
      <fieldset
        class="segmented"
        aria-label="Time range"
        disabled={Boolean(disabledNote)}
        aria-describedby={disabledNote ? 'range-note' : undefined}
      >
        {PRESETS.map((p) => (
          <button
            key={p}
            type="button"
            aria-pressed={current.kind === 'preset' && current.preset === p}
            onClick={() => {
              range.value = { kind: 'preset', preset: p };
              editing.value = false;
            }}
          >
            {p}
          </button>
        ))}
        <button type="button" aria-pressed={current.kind === 'custom'} onClick={openCustom}>
          custom
        </button>
      </fieldset>
      {disabledNote && (
        <span
          class="muted small"
          id="range-note"
          data-testid="range-note"
          title={disabledNote.title}
        >
          {disabledNote.text}
        </span>
      )}
      {current.kind === 'custom' && !editing.value && (
        <span class="muted small" data-testid="custom-range">
          {fmtTime(current.from)} → {fmtTime(current.to)}
        </span>
      )}
      {editing.value && !disabledNote && (
        <form class="custom-range" onSubmit={apply}>
          <label>
            from
            <input
              aria-label="from"
              type="datetime-local"
              value={from.value}
              onInput={(e) => {
                from.value = e.currentTarget.value;
              }}
            />
          </label>
          <label>
            to
            <input
              aria-label="to"
              type="datetime-local"
              value={to.value}
              onInput={(e) => {
                to.value = e.currentTarget.value;
              }}
            />
          </label>
          <button type="submit">Apply</button>
          {problem.value && (
            <span class="range-problem" role="alert">
              {problem.value}
            </span>
          )}
        </form>
      )}
    </div>
  );
}
