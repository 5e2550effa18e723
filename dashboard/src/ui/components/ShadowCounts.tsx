import type { LoopAction, ShadowFindings } from '../../api/types.js';
import { actionLabel, fmtInt } from '../format.js';
import { ActionBadge } from './ActionBadge.js';

/** The shadow findings' kinds, strongest first, with the action each counts. */
const KINDS = [
  ['halts', 'halt'],
  ['blocks', 'block'],
  ['warns', 'warn'],
  ['nudges', 'nudge'],
] as const;

/** Whether any row has a finding decided in shadow mode. */
export function anyShadow(rows: readonly { shadow: ShadowFindings }[]): boolean {
  return rows.some((r) => r.shadow.nudges + r.shadow.warns + r.shadow.blocks + r.shadow.halts > 0);
}

/**
 * The columns of a list page: its Shadow column (key `shadow`) only when a row of the page has
 * shadow findings, so that a team not using shadow mode sees the table as before.
 */
export function shadowColumns<C extends { key: string }>(
  columns: readonly C[],
  rows: readonly { shadow: ShadowFindings }[],
): C[] {
  return anyShadow(rows) ? [...columns] : columns.filter((c) => c.key !== 'shadow');
}

/**
 * A row's findings decided in shadow mode (recorded, never applied), strongest first:
 * "would have blocked 2", "would have warned 1"; a dash when there are none.
 */
export function ShadowCounts({ shadow }: { shadow: ShadowFindings }) {
  const kinds = KINDS.filter(([key]) => shadow[key] > 0);
  if (kinds.length === 0) return <span class="muted">–</span>;
  return (
    <span class="shadow-counts" data-testid="shadow-counts">
      {kinds.map(([key, action]) => (
        <span key={key} class={`count tone-${action} shadow-count`} data-action={action}>
          {actionLabel(action, true)} {fmtInt(shadow[key])}
        </span>
      ))}
    </span>
  );
}

/**
 * Hollow badges for what shadow mode would have done to a session: "would have halted" (a shadow
 * block or halt) or its strongest shadow action otherwise.
 */
export function ShadowBadge({ worst, halted }: { worst: LoopAction; halted: boolean }) {
  if (worst === 'allow') return null;
  const action = halted ? 'halt' : worst;
  return (
    <span class="badge-shadow" data-testid="shadow-badge">
      <ActionBadge action={action} label={actionLabel(action, true)} />
    </span>
  );
}
