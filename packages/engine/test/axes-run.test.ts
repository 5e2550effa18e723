import { describe, expect, it } from 'vitest';
import { axesAfter, axesBefore } from '../src/axes/run.js';
import { loadConfig } from '../src/config/resolve.js';
import { resolvePolicy } from '../src/policies.js';
import {
  type CallContext,
  newScope,
  type ScopeState,
  type SignatureState,
  signatureState,
} from '../src/state.js';
import type { EngineOptions, Finding } from '../src/types.js';

/** The context of one call of `tool` with signature `signature` in `scope`. */
function contextFor(
  scope: ScopeState,
  tool: string,
  signature = `${tool}:0`,
  options: EngineOptions = {},
): CallContext {
  const { config } = loadConfig({ configFile: false, env: {}, ...options });
  return {
    scope,
    sig: signatureState(scope, signature),
    tool,
    signature,
    streak: 1,
    count: 1,
    policy: resolvePolicy(config, tool),
    warnings: config.guardrails.warnings,
    hardStop: config.guardrails.hardStop,
  };
}

const HARD_STOP: EngineOptions = { guardrails: { hardStop: true } };

/** A signature past every default stop threshold (contract section 5). */
function stuck(sig: SignatureState): void {
  sig.successes = 8;
  sig.exactFailures = 5;
  sig.sameResultRun = 5;
  sig.pollRun = 20;
}

describe('axesBefore', () => {
  it('refuses a stuck call of each kind on the first axis of its order', () => {
    const refused = (tool: string) => {
      const ctx = contextFor(newScope(), tool, undefined, HARD_STOP);
      stuck(ctx.sig);
      return axesBefore(ctx)?.axis;
    };
    // unclassified and mutating tools: repetition first
    expect(refused('deploy')).toBe('repetition');
    expect(refused('write_file')).toBe('repetition');
    // idempotent tools are not measured on repetition
    expect(refused('read_file')).toBe('exact_failure');
    expect(refused('job_status')).toBe('poll');
  });

  it('falls through to the later axes of the order', () => {
    const idempotent = contextFor(newScope(), 'read_file', undefined, HARD_STOP);
    idempotent.sig.sameResultRun = 5;
    expect(axesBefore(idempotent)).toMatchObject({ axis: 'no_progress', action: 'block' });

    const poller = contextFor(newScope(), 'job_status', undefined, HARD_STOP);
    poller.sig.exactFailures = 5;
    expect(axesBefore(poller)).toMatchObject({ axis: 'exact_failure', action: 'block' });
    // a poller is never refused for no progress
    poller.sig.exactFailures = 0;
    poller.sig.sameResultRun = 50;
    expect(axesBefore(poller)).toBeUndefined();
  });

  it('refuses nothing without hard stop', () => {
    for (const tool of ['deploy', 'read_file', 'job_status']) {
      const ctx = contextFor(newScope(), tool);
      stuck(ctx.sig);
      expect(axesBefore(ctx)).toBeUndefined();
    }
  });
});

describe('axesAfter', () => {
  const stale: Finding = { axis: 'poll', action: 'warn', count: 1, threshold: 1, message: 'old' };

  it('writes into the buffer it is given, emptied first', () => {
    const buffer = [stale];
    const ctx = contextFor(newScope(), 'deploy');
    const found = axesAfter(ctx, true, 'r', undefined, buffer);
    expect(found).toBe(buffer);
    expect(found).toEqual([]);
  });

  it('nudges at a threshold of the streak, and puts the nudge first', () => {
    const ctx = contextFor(newScope(), 'read_file');
    ctx.streak = 5;
    ctx.sig.lastResult = 'same';
    ctx.sig.sameResultRun = 4;
    const found = axesAfter(ctx, true, 'same', [3, 5, 8], []);
    expect(found.map((f) => [f.axis, f.action, f.level])).toEqual([
      ['streak', 'nudge', 2],
      ['no_progress', 'warn', undefined],
    ]);
    expect(axesAfter(ctx, true, 'other', [3, 8], [])).toEqual([]);
  });

  it('counts a failure for its signature and its tool, and a success resets the signature', () => {
    const scope = newScope();
    const ctx = contextFor(scope, 'run_tests');
    expect(axesAfter(ctx, false, 'exit 1', undefined, [])).toEqual([]);
    expect(axesAfter(ctx, false, 'exit 1', undefined, [])).toEqual([]);
    const third = axesAfter(ctx, false, 'exit 1', undefined, []);
    expect(third.map((f) => f.axis)).toEqual(['exact_failure', 'same_tool_failure']);
    expect(ctx.sig.exactFailures).toBe(3);
    expect(scope.toolFailures.get('run_tests')).toBe(3);
    axesAfter(ctx, true, 'ok', undefined, []);
    expect(ctx.sig.exactFailures).toBe(0);
    // the tool's failures count across signatures, and a success of one does not clear them
    expect(scope.toolFailures.get('run_tests')).toBe(3);
    expect(ctx.sig.lastResult).toBe('ok');
  });

  it('a successful mutating call clears the progress counters of every signature', () => {
    const scope = newScope();
    const read = contextFor(scope, 'read_file', 'read_file:a');
    axesAfter(read, true, 'same', undefined, []);
    axesAfter(read, true, 'same', undefined, []);
    const failing = contextFor(scope, 'run_tests', 'run_tests:a');
    axesAfter(failing, false, 'exit 1', undefined, []);
    expect([read.sig.sameResultRun, failing.sig.exactFailures, scope.toolFailures.size]).toEqual([
      2, 1, 1,
    ]);
    axesAfter(contextFor(scope, 'write_file', 'write_file:a'), true, 'done', undefined, []);
    expect([read.sig.sameResultRun, failing.sig.exactFailures, scope.toolFailures.size]).toEqual([
      0, 0, 0,
    ]);
  });

  it('marks a poll whose result changed, so a cycle holding it is not flagged', () => {
    /** job_status and deploy in turn, six laps: the axes found along the way. */
    const axesSeen = (status: (lap: number) => string) => {
      const scope = newScope();
      const poll = contextFor(scope, 'job_status', 'job_status:a');
      const other = contextFor(scope, 'deploy', 'deploy:a');
      const seen: string[] = [];
      for (let lap = 0; lap < 6; lap++) {
        for (const f of axesAfter(poll, true, status(lap), undefined, [])) seen.push(f.axis);
        for (const f of axesAfter(other, true, 'ok', undefined, [])) seen.push(f.axis);
      }
      return seen;
    };
    expect(axesSeen(() => 'running')).toContain('cycle');
    // the same calls, but the status alternates: polling that sees change
    expect(axesSeen((lap) => (lap % 2 === 0 ? 'running' : 'queued'))).not.toContain('cycle');
  });
});
