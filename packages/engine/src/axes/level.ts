import { findingText } from '../notice.js';
import type { Axis, Finding } from '../types.js';

/**
 * The finding of a counter on an axis with a warn and a stop threshold: the stop action once
 * hard stop is on and `count` reached `stopAt`, else a warning from `warnAt` when warnings are on.
 */
export function thresholdFinding(
  axis: Axis,
  tool: string,
  count: number,
  warnAt: number,
  stopAt: number,
  stopAction: 'block' | 'halt',
  flags: { warnings: boolean; hardStop: boolean },
): Finding | undefined {
  if (flags.hardStop && count >= stopAt) {
    return {
      axis,
      action: stopAction,
      count,
      threshold: stopAt,
      message: findingText(axis, stopAction, tool, count),
    };
  }
  if (flags.warnings && count >= warnAt) {
    return {
      axis,
      action: 'warn',
      count,
      threshold: warnAt,
      message: findingText(axis, 'warn', tool, count),
    };
  }
  return undefined;
}

/** A block or halt finding for a call refused before it runs. */
export function stopFinding(
  axis: Axis,
  tool: string,
  count: number,
  threshold: number,
  action: 'block' | 'halt',
): Finding {
  return { axis, action, count, threshold, message: findingText(axis, action, tool, count, true) };
}
