import type { LoopAction } from '../../api/types.js';

/** A colored badge naming a loopguard action (or another status word). */
export function ActionBadge({ action, label }: { action: LoopAction; label?: string }) {
  return <span class={`badge badge-${action}`}>{label ?? action}</span>;
}
