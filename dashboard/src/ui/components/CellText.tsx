import { fmtShortTime, fmtTime } from '../format.js';

/** Text cut to the column width with an ellipsis, the whole text in `title`. */
export function Clipped({ text, wide }: { text: string; wide?: boolean }) {
  return (
    <span class={wide ? 'clip clip-wide' : 'clip'} title={text}>
      {text}
    </span>
  );
}

/** A time in a narrow cell: short (fmtShortTime), the full local time in `title`. */
export function ShortTime({ ms }: { ms: number }) {
  return <span title={fmtTime(ms)}>{fmtShortTime(ms)}</span>;
}
