import type { Signal } from '@preact/signals';
import { fmtInt, plural } from '../format.js';

/** Previous/next paging of a server-side paged list; `noun` is singular ("session"). */
export function Pager(props: {
  offset: Signal<number>;
  limit: number;
  total: number;
  noun: string;
}) {
  const { offset, limit, total, noun } = props;
  const start = offset.value;
  const end = Math.min(start + limit, total);
  return (
    <nav class="pager" aria-label={`${noun} pages`}>
      <span class="muted">
        {total === 0
          ? plural(0, noun)
          : `${fmtInt(start + 1)}–${fmtInt(end)} of ${plural(total, noun)}`}
      </span>
      <button
        type="button"
        disabled={start === 0}
        onClick={() => {
          offset.value = Math.max(0, start - limit);
        }}
      >
        ‹ Prev
      </button>
      <button
        type="button"
        disabled={end >= total}
        onClick={() => {
          offset.value = start + limit;
        }}
      >
        Next ›
      </button>
    </nav>
  );
}
