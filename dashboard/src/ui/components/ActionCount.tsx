import { fmtInt } from '../format.js';

/** The decisions a count column counts. */
export type CountedAction = 'nudge' | 'warn' | 'block' | 'halt';

/** A count of decisions in a table cell: coloured by the action when above zero, else "0". */
export function ActionCount({ action, n }: { action: CountedAction; n: number }) {
  return n > 0 ? <span class={`count tone-${action}`}>{fmtInt(n)}</span> : '0';
}

const ACTION_OF = { nudges: 'nudge', warns: 'warn', blocks: 'block', halts: 'halt' } as const;

/** A column's `render` showing a row's count of `key` decisions as an ActionCount. */
export const countOf =
  <K extends keyof typeof ACTION_OF>(key: K) =>
  (row: Record<K, number>) => <ActionCount action={ACTION_OF[key]} n={row[key]} />;
