import { fmtShortTime, fmtTime } from '../format.js';

/**
 * A call signature (`tool:argsHash16`) in a narrow cell: the tool part shrinks with an ellipsis
 * while the hash that tells signatures apart stays whole; the text (and copy/paste) is the full
 * signature, and `title` shows it on hover.
 */
export function SignatureCode({ signature, title }: { signature: string; title?: string }) {
  const at = signature.lastIndexOf(':');
  const head = at < 0 ? signature : signature.slice(0, at);
  const tail = at < 0 ? '' : signature.slice(at);
  return (
    <code class="sig" title={title ?? signature}>
      <span class="sig-tool">{head}</span>
      {tail && <span class="sig-hash">{tail}</span>}
    </code>
  );
}

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
