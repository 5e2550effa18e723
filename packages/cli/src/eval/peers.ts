import { argsHash, canonicalJson } from '@loopguard/engine';
import type { ReplayCall } from '../types.js';
import { OutcomeBuilder } from './outcome.js';
import type { Detector, Run, RunOutcome } from './types.js';

/**
 * The loop rules of two other agents, implemented for tool-call logs, as baselines. Each stops
 * the run (a halt) where it fires: neither warns first.
 */

/** A call as the peer rules compare it: the action (tool + arguments) and its observation. */
interface Observed {
  tool: string;
  /** Canonical hash of the arguments: equal arguments, however their keys were ordered. */
  action: string;
  ok: boolean;
  /** Canonical JSON of the result. */
  result: string;
  /** Whether the tool is a shell command (OpenHands compares its outputs by exit status only). */
  command: boolean;
}

/** Runs `rule` after every call of a run (the history since the last new turn); it stops at the first hit. */
function peerRun(run: Run, rule: (history: readonly Observed[]) => string | undefined): RunOutcome {
  const builder = new OutcomeBuilder();
  let history: Observed[] = [];
  let calls = 0;
  for (const step of run.steps) {
    if ('reset' in step.line) {
      history = [];
      continue;
    }
    calls += 1;
    history.push(observed(step.line));
    const fired = rule(history);
    const finding =
      fired === undefined
        ? undefined
        : { action: 'halt' as const, axis: fired, tool: step.line.tool, where: step.where };
    if (builder.call(calls, finding)) break;
  }
  return builder.outcome;
}

const COMMAND_TOOLS = new Set([
  'bash',
  'shell',
  'sh',
  'execute_bash',
  'run_shell_command',
  'terminal',
]);

function observed(call: ReplayCall): Observed {
  return {
    tool: call.tool,
    action: `${call.tool}\u0000${argsHash(call.args)}`,
    // a call that never ran (refused when it was recorded) has no output: an error to both rules
    ok: call.ran !== false && call.ok !== false,
    result: call.result === undefined ? '' : canonicalJson(call.result),
    command: COMMAND_TOOLS.has(call.tool),
  };
}

/** Gemini CLI's tool-call loop rule: the same tool with the same arguments 5 times in a row. */
export const GEMINI_CLI_THRESHOLD = 5;

function geminiCli(history: readonly Observed[]): string | undefined {
  const n = history.length;
  if (n < GEMINI_CLI_THRESHOLD) return undefined;
  const last = history[n - 1]!.action;
  for (let i = n - GEMINI_CLI_THRESHOLD; i < n - 1; i++) {
    if (history[i]!.action !== last) return undefined;
  }
  return 'identical_calls';
}

/** OpenHands `_eq_no_pid` for observations: command output by exit status, the rest by content. */
function sameObservation(a: Observed, b: Observed): boolean {
  if (a.command && b.command) return a.action === b.action && a.ok === b.ok;
  return a.ok === b.ok && a.result === b.result;
}

/** OpenHands' ErrorObservation: a failed call, except a shell command's (its output says the exit code). */
const isErrorObservation = (o: Observed) => !o.ok && !o.command;

/**
 * OpenHands StuckDetector (openhands/controller/stuck.py) on tool calls, checked after each
 * observation as its controller does before the next step:
 *  - the last 4 calls are the same action with the same observation;
 *  - the last 3 calls are the same action and each observation is an error;
 *  - the last 6 calls alternate two (action, observation) pairs, A B A B A B.
 * Its monologue rule (3 identical agent messages with no observation between), its IPython
 * syntax-error rule and its context-window rule (10 condensations in a row) need messages and
 * events a tool-call log does not hold, so they never fire here.
 */
function openHands(history: readonly Observed[]): string | undefined {
  const last = (k: number) => history.slice(-k).reverse();
  const four = last(4);
  if (
    four.length === 4 &&
    four.every((o) => o.action === four[0]!.action && sameObservation(o, four[0]!))
  ) {
    return 'repeating_action_observation';
  }
  const three = last(3);
  if (
    three.length === 3 &&
    three.every((o) => o.action === three[0]!.action && isErrorObservation(o))
  ) {
    return 'repeating_action_error';
  }
  const six = last(6);
  if (six.length === 6) {
    const alternates = [0, 1].every((k) =>
      [2, 4].every(
        (j) => six[k + j]!.action === six[k]!.action && sameObservation(six[k + j]!, six[k]!),
      ),
    );
    if (alternates) return 'repeating_action_observation_pattern';
  }
  return undefined;
}

/** The two peer rules as detectors: `gemini-cli` and `openhands`. */
export function peerDetectors(): Detector[] {
  return [
    { name: 'gemini-cli', kind: 'peer', hardStop: true, run: (run) => peerRun(run, geminiCli) },
    { name: 'openhands', kind: 'peer', hardStop: true, run: (run) => peerRun(run, openHands) },
  ];
}
