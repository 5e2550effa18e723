import { fmtInt } from '../format.js';

/** The decisions a count column counts. */
export type CountedAction = 'nudge' | 'warn' | 'block' | 'halt';

/** A count of decisions in a table cell: coloured by the action when above zero, else "0". */
export function ActionCount({ action, n }: { action: CountedAction; n: number }) {
  return n > 0 ? <span class={`count tone-${action}`}>{fmtInt(n)}</span> : '0';
}
