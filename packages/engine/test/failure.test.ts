import { describe, expect, it } from 'vitest';
import { sameToolFailureAfter } from '../src/axes/failure.js';
import { loadConfig } from '../src/config/resolve.js';
import { resolvePolicy } from '../src/policies.js';
import { type CallContext, newScope, type ScopeState, signatureState } from '../src/state.js';
import { axes, call, engineWith } from './helpers.js';

/** A call context on `scope` with the default configuration. */
function context(scope: ScopeState): CallContext {
  const { config } = loadConfig({ configFile: false, env: {} });
  return {
    scope,
    sig: signatureState(scope, 'x'),
    tool: '',
    signature: 'x',
    streak: 1,
    count: 1,
    policy: resolvePolicy(config, ''),
    warnings: true,
    hardStop: false,
  };
}

// no error text: these tests are about the exact and same-tool axes (same_error needs a text)
const fail = { ok: false };

describe('exact_failure', () => {
  it('warns from the 3rd failure of a signature and blocks from the 5th with hard stop', () => {
    const engine = engineWith({ guardrails: { hardStop: true }, nudge: { thresholds: [] } });
    const decisions = Array.from(
      { length: 5 },
      () => call(engine, 'run_tests', { suite: 'a' }, fail).after!,
    );
    expect(
      decisions.map((d) => d.findings.find((f) => f.axis === 'exact_failure')?.action),
    ).toEqual([undefined, undefined, 'warn', 'warn', 'block']);
    expect(engine.haltDecision()?.axis).toBe('exact_failure');
    const next = engine.beforeCall({ tool: 'run_tests', args: { suite: 'a' } });
    expect(next).toMatchObject({ action: 'block', axis: 'exact_failure' });
  });

  it('counts only since the signature last succeeded', () => {
    const engine = engineWith();
    call(engine, 'run_tests', { suite: 'a' }, fail);
    call(engine, 'run_tests', { suite: 'a' }, { ok: true });
    const after = call(engine, 'run_tests', { suite: 'a' }, fail).after!;
    expect(axes(after)).not.toContain('exact_failure');
  });

  it('warns without hard stop and never blocks', () => {
    const engine = engineWith({
      nudge: { thresholds: [] },
      tools: { run_tests: { failureTolerant: true } },
    });
    for (let i = 0; i < 9; i++) {
      const { before, after } = call(engine, 'run_tests', { suite: 'a' }, fail);
      expect(before.action).toBe('allow');
      expect(after!.action).toBe(i < 2 ? 'allow' : 'warn');
    }
  });
});

describe('same_tool_failure', () => {
  it('warns from 3 failures of a tool with any arguments and halts at 10 with hard stop', () => {
    const engine = engineWith({ guardrails: { hardStop: true }, nudge: { thresholds: [] } });
    const found = [];
    for (let i = 0; i < 10; i++) {
      const after = call(engine, 'bash', { command: `attempt ${i}` }, fail).after!;
      found.push(after.findings.find((f) => f.axis === 'same_tool_failure')?.action ?? '-');
    }
    expect(found).toEqual(['-', '-', ...Array(7).fill('warn'), 'halt']);
    expect(engine.haltDecision()).toMatchObject({
      axis: 'same_tool_failure',
      action: 'halt',
      count: 10,
    });
    // A halted scope refuses every further call, whatever the tool, naming the tool that failed.
    const refused = engine.beforeCall({ tool: 'read_file', args: { path: 'x' } });
    expect(refused.action).toBe('block');
    expect(refused.action === 'block' && refused.message).toMatch(
      /^\[loopguard\] Halted: bash has failed 10 times.*This run has been stopped/,
    );
  });

  it('a halt stops the run even after an earlier block in the scope', () => {
    const engine = engineWith({ guardrails: { hardStop: true }, nudge: { thresholds: [] } });
    // five failures of one signature: exact_failure blocks it (the scope's first block)
    for (let i = 0; i < 5; i++) call(engine, 'deploy', { v: 1 }, fail);
    expect(engine.haltDecision()).toMatchObject({ axis: 'exact_failure', action: 'block' });
    // five more failures of the tool with other arguments: same_tool_failure halts at 10
    const last = [2, 3, 4, 5, 6].map((v) => call(engine, 'deploy', { v }, fail).after!);
    expect(last[4]!.action).toBe('halt');
    for (const [tool, args] of [
      ['deploy', { v: 7 }],
      ['bash', { cmd: 'ls' }],
    ] as const) {
      const refused = engine.beforeCall({ tool, args });
      expect(refused).toMatchObject({ action: 'block', axis: 'same_tool_failure' });
      expect(refused.action === 'block' && refused.message).toMatch(
        /^\[loopguard\] Halted: deploy has failed 10 times/,
      );
    }
    // haltDecision stays the first block or halt (the API's promise)
    expect(engine.haltDecision()?.axis).toBe('exact_failure');
  });

  it('a call that both blocks and halts is a halt: the strongest finding leads the decision', () => {
    const engine = engineWith({ guardrails: { hardStop: true }, nudge: { thresholds: [] } });
    // five failures of v1, then five of v2: the 5th failure of v2 is the tool's 10th, so one call
    // reaches exact_failure's block and same_tool_failure's halt together; v1's own block is left
    // out by failing it four times only, then once more with v0 in between
    for (let i = 0; i < 4; i++) call(engine, 'deploy', { v: 1 }, fail);
    call(engine, 'deploy', { v: 0 }, fail);
    const v2 = Array.from({ length: 5 }, () => call(engine, 'deploy', { v: 2 }, fail).after!);
    const both = v2[4]!;
    expect(both.findings.map((f) => [f.axis, f.action])).toEqual([
      ['same_tool_failure', 'halt'],
      ['exact_failure', 'block'],
    ]);
    expect(both).toMatchObject({ action: 'halt', axis: 'same_tool_failure' });
    expect(both.action === 'halt' && both.message).toMatch(
      /^\[loopguard\] Halted: deploy has failed 10 times/,
    );
  });

  it('never fires for failure-tolerant tools', () => {
    const engine = engineWith({
      guardrails: { hardStop: true },
      tools: { bash: { failureTolerant: true } },
    });
    for (let i = 0; i < 10; i++) {
      expect(axes(call(engine, 'bash', { command: `x${i}` }, fail).after)).not.toContain(
        'same_tool_failure',
      );
    }
  });

  it('is cleared by a successful mutating call, as are exact failures', () => {
    const engine = engineWith({ nudge: { thresholds: [] } });
    call(engine, 'fetch_url', { u: 1 }, fail);
    call(engine, 'fetch_url', { u: 1 }, fail);
    call(engine, 'write_file', { path: 'fix.txt' }, { ok: true });
    const after = call(engine, 'fetch_url', { u: 1 }, fail).after!;
    expect(after.action).toBe('allow');
  });

  it('is cleared by a mutating success only: idempotent and unclassified successes keep the counts', () => {
    const engine = engineWith({ nudge: { thresholds: [] } });
    call(engine, 'bash', { command: 'make' }, fail);
    call(engine, 'bash', { command: 'make test' }, fail);
    call(engine, 'bash', { command: 'make' }, fail);
    call(engine, 'read_file', { path: 'a' }, { result: 'same' });
    call(engine, 'read_file', { path: 'a' }, { result: 'same' });
    // neither an idempotent nor an unclassified success is progress of the scope
    call(engine, 'grep', { q: 'x' }, { result: 'hit' });
    call(engine, 'create_ticket', { title: 't' }, { result: 'T-1' });
    const failed = call(engine, 'bash', { command: 'make' }, fail).after!;
    expect(failed.findings.map((f) => [f.axis, f.count])).toEqual([
      ['exact_failure', 3],
      ['same_tool_failure', 4],
    ]);
    const read = call(engine, 'read_file', { path: 'a' }, { result: 'same' }).after!;
    expect(read.findings.map((f) => [f.axis, f.count])).toEqual([['no_progress', 3]]);
  });

  it('honours per-tool threshold overrides', () => {
    const engine = engineWith({
      tools: { deploy: { warnAfter: { sameToolFailure: 1, exactFailure: 9 } } },
    });
    expect(call(engine, 'deploy', { env: 'a' }, fail).after).toMatchObject({
      action: 'warn',
      axis: 'same_tool_failure',
    });
  });
});

describe('same_tool_failure memory', () => {
  it('a scope keeps the failure counts of the 2 048 tools that failed last, not of every name', () => {
    // a model that invents a new tool name for every call: each call fails as an unknown tool
    const scope = newScope();
    const ctx = { ...context(scope), tool: '' };
    for (let i = 0; i < 10_000; i++) {
      ctx.tool = `invented_${i}`;
      sameToolFailureAfter(ctx);
      if (i % 7 === 0) {
        ctx.tool = 'bash';
        sameToolFailureAfter(ctx);
      }
    }
    expect(scope.toolFailures.size).toBeLessThanOrEqual(2048);
    // a tool that keeps failing meanwhile keeps its count
    expect(scope.toolFailures.get('bash')).toBe(Math.ceil(10_000 / 7));
    expect(scope.toolFailures.has('invented_9999')).toBe(true);
  });
});
