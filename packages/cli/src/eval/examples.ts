import type { Evaluated } from './metrics.js';
import type { Detector, DetectorExamples, Example, Moment, Run } from './types.js';

const ARGS_SHOWN = 120;

/**
 * For each detector, the healthy runs that got its decisive action (a stop when it can stop runs,
 * else a warn) with the call that decided, and the stuck runs that did not, with their strongest
 * finding and the call where the repetition began.
 */
export function examplesOf(
  evaluated: readonly Evaluated[],
  detectors: readonly Detector[],
): Record<string, DetectorExamples> {
  const out: Record<string, DetectorExamples> = {};
  for (const [d, detector] of detectors.entries()) {
    const decisive = detector.hardStop ? 'stop' : 'warn';
    const broken: Example[] = [];
    const missed: Example[] = [];
    for (const e of evaluated) {
      const outcome = e.outcomes[d]!;
      const moment = decisive === 'stop' ? outcome.stop : outcome.warn;
      if (e.label.label === 'healthy' && moment !== undefined) {
        broken.push(example(e, moment, moment.call));
      } else if (e.label.label === 'stuck' && moment === undefined) {
        missed.push(example(e, outcome.strongest, e.label.onset));
      }
    }
    out[detector.name] = { decisive, broken, missed };
  }
  return out;
}

function example(e: Evaluated, moment: Moment | undefined, shown: number | undefined): Example {
  const out: Example = { scope: e.run.scope, calls: callsOf(e.run).length };
  if (e.label.source !== undefined) out.source = e.label.source;
  if (e.label.onset !== undefined) out.onset = e.label.onset;
  if (moment !== undefined) out.moment = moment;
  const call = shown === undefined ? undefined : callsOf(e.run)[shown - 1];
  if (call !== undefined) out.call = { tool: call.tool, args: argsText(call.args) };
  return out;
}

function callsOf(run: Run) {
  return run.steps.flatMap(({ line }) => ('reset' in line ? [] : [line]));
}

function argsText(args: unknown): string {
  const text = typeof args === 'string' ? args : (JSON.stringify(args) ?? '');
  return text.length > ARGS_SHOWN ? `${text.slice(0, ARGS_SHOWN - 1)}…` : text;
}
