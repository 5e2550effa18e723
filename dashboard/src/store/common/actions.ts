import type { LoopAction } from '../../api/types.js';

/** Loopguard actions from weakest to strongest; the index is the rank. */
export const ACTIONS: readonly LoopAction[] = ['allow', 'nudge', 'warn', 'block', 'halt'];

/** Rank of an action (0 = allow); -1 when the value is not an action. */
export function actionRank(action: string): number {
  return ACTIONS.indexOf(action as LoopAction);
}
