import type { LoopAction, TimelineCall } from '../../api/types.js';
import { actionLabel, fmtClock, fmtInt } from '../format.js';
import type { Run } from '../timeline-runs.js';
import { ARGS_ATTRIBUTE, CallName } from './CallName.js';
import { VirtualList } from './VirtualList.js';

const ROW_HEIGHT = 30;

/** Calls worth a marker: where the action changes inside a run (not every repeat of it). */
function markers(run: Run): { index: number; call: TimelineCall }[] {
  const out: { index: number; call: TimelineCall }[] = [];
  let prev = '';
  run.calls.forEach((call, index) => {
    const key = call.shadow ? `${call.action} shadow` : call.action;
    if (call.action !== 'allow' && key !== prev) out.push({ index, call });
    prev = key;
  });
  return out;
}

function RunRow(props: {
  run: Run;
  first: number;
  total: number;
  selected: number | null;
  onSelect: (index: number) => void;
}) {
  const { run, total, selected, onSelect } = props;
  const n = run.calls.length;
  const local = run.first - props.first;
  const isSelected = selected !== null && selected >= local && selected < local + n;
  const left = (local / total) * 100;
  const width = (n / total) * 100;
  const last = run.first + n;
  const marks = markers(run);
  const strongest = run.calls.findIndex((c) => c.action === run.worst);
  return (
    <div class={`run${isSelected ? ' selected' : ''}`} data-testid="run">
      <span class="run-index muted">
        {n === 1 ? `#${run.first + 1}` : `#${run.first + 1}–${last}`}
      </span>
      <span class="run-time muted">{fmtClock(run.start)}</span>
      <span class="run-sig">
        <CallName
          tool={run.tool}
          signature={run.signature}
          args={run.calls[0]?.attributes[ARGS_ATTRIBUTE]}
        />
      </span>
      <div class="track">
        <button
          type="button"
          class={`bar tone-${run.worst}${n > 1 ? ' streak' : ''}`}
          style={{ left: `${left}%`, width: `max(6px, ${width}%)` }}
          aria-label={`${run.tool} ×${n}, streak ${run.streak}, ${run.worst}`}
          data-testid="streak-bar"
          onClick={() => onSelect(local + Math.max(0, strongest))}
        />
        {marks.map(({ index, call }) => (
          <button
            key={index}
            type="button"
            class={`marker marker-${call.action}${call.shadow ? ' marker-shadow' : ''}`}
            style={{ left: `calc(${left + ((index + 0.5) / n) * width}% - 5px)` }}
            title={`${actionLabel(call.action, call.shadow)}${call.level ? ` level ${call.level}` : ''}${call.axis ? ` (${call.axis})` : ''} at call #${run.first + index + 1}`}
            aria-label={`${actionLabel(call.action, call.shadow)} at call ${run.first + index + 1}`}
            data-testid={`marker-${call.action}`}
            data-shadow={call.shadow ? 'true' : undefined}
            onClick={() => onSelect(local + index)}
          />
        ))}
        {n > 1 && (
          <span
            class={`streak-label${width >= 8 ? ' inside' : ''}`}
            style={
              width >= 8
                ? { left: `calc(${left}% + 6px)` }
                : left + width > 80
                  ? { right: `calc(${100 - left}% + 4px)` }
                  : { left: `calc(${left}% + max(6px, ${width}%) + 4px)` }
            }
            data-testid="streak-count"
          >
            ×{fmtInt(run.streak)}
          </span>
        )}
      </div>
    </div>
  );
}

/** The session's calls in order: one row per run of identical calls, bar length = calls. */
export function TimelineRuns(props: {
  runs: Run[];
  /** Session index of the page's first call. */
  first: number;
  /** Calls on the page (the x axis spans them). */
  total: number;
  selected: number | null;
  onSelect: (index: number) => void;
}) {
  return (
    <div class="timeline">
      <div class="timeline-legend muted small" aria-hidden="true">
        {(['nudge', 'warn', 'block', 'halt'] as LoopAction[]).map((a) => (
          <span key={a}>
            <i class={`marker-dot marker-${a}`} /> {a}
          </span>
        ))}
        <span>bar length = calls in a row with identical arguments</span>
      </div>
      <VirtualList
        key={props.first}
        count={props.runs.length}
        rowHeight={ROW_HEIGHT}
        height={560}
        label="Calls in order, grouped into runs"
        renderRow={(i) => {
          const run = props.runs[i];
          return run ? (
            <RunRow
              run={run}
              first={props.first}
              total={props.total}
              selected={props.selected}
              onSelect={props.onSelect}
            />
          ) : null;
        }}
      />
    </div>
  );
}
