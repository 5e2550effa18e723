// Reference 000: the repeat-tool nudge.
import { describe, expect, it } from 'vitest';
import { appendNotice } from '../src/notice.js';
import { signatureOf } from '../src/signature/signature.js';
import { call, engineWith } from './helpers.js';

const GREP = { pattern: 'TODO', path: 'src' };

function streakRun(
  engine: ReturnType<typeof engineWith>,
  n: number,
  tool = 'grep',
  args: unknown = GREP,
) {
  // A different result each time, so only the streak axis can speak.
  return Array.from({ length: n }, (_, i) => call(engine, tool, args, { result: `r${i}` }).after!);
}

describe('streak nudge (reference 000)', () => {
  it('nudges exactly at the 3rd, 5th and 8th identical call in a row', () => {
    const decisions = streakRun(engineWith(), 10);
    const nudged = decisions.flatMap((d, i) =>
      d.findings.some((f) => f.axis === 'streak') ? [i + 1] : [],
    );
    expect(nudged).toEqual([3, 5, 8]);
    expect(decisions.map((d) => d.streak)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(decisions[2]?.level).toBe(1);
    expect(decisions[4]?.level).toBe(2);
    expect(decisions[7]?.level).toBe(3);
  });

  it('escalates in tone: three distinct texts, each naming the tool', () => {
    const decisions = streakRun(engineWith(), 8);
    const texts = [2, 4, 7].map(
      (i) => decisions[i]!.findings.find((f) => f.axis === 'streak')!.message,
    );
    expect(new Set(texts).size).toBe(3);
    // reference 000: each asks to re-read the last result and either change approach or
    // conclude the repeat is intentional; only the tone rises
    for (const text of texts) {
      expect(text).toContain('grep');
      expect(text).toMatch(/Re-read the (result above|last result)/);
      expect(text).toMatch(/intentional/);
    }
    expect(texts.map((t) => t.split(':')[0])).toEqual([
      '[loopguard] Reminder',
      '[loopguard] Second reminder',
      '[loopguard] Final reminder',
    ]);
    // the streak compares no results, so no text may claim they were the same
    for (const text of texts) expect(text).not.toMatch(/same (kind of )?result/);
  });

  it('is advisory only: never blocks, even with hard stop on', () => {
    const engine = engineWith({
      guardrails: { hardStop: true },
      tools: { grep: { kind: 'idempotent' } },
    });
    for (let i = 0; i < 20; i++) {
      // different results each time: no no-progress block, only the streak axis
      const before = engine.beforeCall({ tool: 'grep', args: GREP });
      expect(before.action).toBe('allow');
      const after = engine.afterCall({ tool: 'grep', args: GREP, result: `match ${i}` });
      expect(['allow', 'nudge']).toContain(after.action);
    }
  });

  it('appends the reminder to the result without rewriting it', () => {
    const decisions = streakRun(engineWith(), 3);
    const third = decisions[2]!;
    const original = 'src/a.ts:1: TODO fix';
    const shown = appendNotice(original, third);
    expect(shown.startsWith(original)).toBe(true);
    expect(shown).toContain(third.findings[0]!.message);
  });

  it('treats reordered JSON keys (and JSON-string arguments) as the same call', () => {
    const engine = engineWith();
    call(engine, 'grep', { pattern: 'TODO', path: 'src' }, { result: 1 });
    call(engine, 'grep', { path: 'src', pattern: 'TODO' }, { result: 2 });
    const third = call(engine, 'grep', '{"path":"src","pattern":"TODO"}', { result: 3 }).after!;
    expect(third.streak).toBe(3);
    expect(third.action).toBe('nudge');
  });

  it('resets on any different call in between', () => {
    const engine = engineWith();
    call(engine, 'grep', GREP, { result: 'a' });
    call(engine, 'grep', GREP, { result: 'b' });
    call(engine, 'read_file', { path: 'a' });
    const next = streakRun(engine, 3);
    expect(next.map((d) => d.streak)).toEqual([1, 2, 3]);
    expect(next[2]!.action).toBe('nudge');
  });

  it('never nudges todo_write / todo_read', () => {
    const engine = engineWith();
    const decisions = [
      ...streakRun(engine, 8, 'todo_read', {}),
      ...streakRun(engine, 8, 'todo_write', { items: [] }),
    ];
    expect(decisions.flatMap((d) => d.findings.filter((f) => f.axis === 'streak'))).toEqual([]);
  });

  it('reads thresholds from the environment at call time', () => {
    const env: Record<string, string | undefined> = {};
    const engine = engineWith({ env });
    const next = (i: number) => call(engine, 'grep', GREP, { result: i }).after!;
    next(1);
    env.LOOPGUARD_NUDGE_THRESHOLDS = '2,4';
    expect(next(2).level).toBe(1);
    expect(next(3).action).toBe('allow');
    env.LOOPGUARD_NUDGE_THRESHOLDS = undefined;
    env.CYBERINE_REPEAT_TOOL_THRESHOLDS = '4,9';
    expect(next(4).level).toBe(1);
  });

  it('reads the environment only for a call that repeats the previous one', () => {
    const reads: string[] = [];
    const env = new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => {
        reads.push(String(name));
        return undefined;
      },
    });
    const engine = engineWith({ env });
    reads.length = 0;
    call(engine, 'grep', { q: 'a' });
    call(engine, 'grep', { q: 'b' });
    expect(reads).toEqual([]);
    call(engine, 'grep', { q: 'b' });
    expect(reads).toContain('LOOPGUARD_NUDGE_THRESHOLDS');
  });

  it('accepts any number of ascending thresholds', () => {
    const engine = engineWith({ env: { LOOPGUARD_NUDGE_THRESHOLDS: '2, 3, 4, 6, 10' } });
    const decisions = streakRun(engine, 12);
    const levels = decisions.map((d) => d.level ?? 0);
    expect(levels).toEqual([0, 1, 2, 3, 0, 4, 0, 0, 0, 5, 0, 0]);
  });

  it('is disabled by an empty string', () => {
    const engine = engineWith({ env: { CYBERINE_REPEAT_TOOL_THRESHOLDS: '' } });
    expect(streakRun(engine, 10).every((d) => d.action === 'allow')).toBe(true);
  });

  it.each([['5,3'], ['3,3,8'], ['0,2'], ['1,3'], ['-1,4'], ['a,b'], ['2.5']])(
    'falls back to the default on an invalid value %j, with one diagnostic',
    (raw) => {
      const messages: string[] = [];
      const engine = engineWith({
        env: { LOOPGUARD_NUDGE_THRESHOLDS: raw },
        onDiagnostic: (m) => messages.push(m),
      });
      const nudged = streakRun(engine, 9).flatMap((d, i) => (d.action === 'nudge' ? [i + 1] : []));
      expect(nudged).toEqual([3, 5, 8]);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toContain('LOOPGUARD_NUDGE_THRESHOLDS');
    },
  );

  it('says in one sentence what is wrong with the value', () => {
    const messages: string[] = [];
    const engine = engineWith({
      env: { LOOPGUARD_NUDGE_THRESHOLDS: '5,3' },
      onDiagnostic: (m) => messages.push(m),
    });
    streakRun(engine, 3);
    expect(messages).toEqual([
      'LOOPGUARD_NUDGE_THRESHOLDS="5,3": not strictly ascending (5 then 3); using 3,5,8',
    ]);
  });

  it('the config object wins over the environment', () => {
    const engine = engineWith({
      env: { LOOPGUARD_NUDGE_THRESHOLDS: '2' },
      nudge: { thresholds: '4' },
    });
    const nudged = streakRun(engine, 6).flatMap((d, i) => (d.action === 'nudge' ? [i + 1] : []));
    expect(nudged).toEqual([4]);
  });

  it('honours nudge: false and nudge.exclude per tool', () => {
    const engine = engineWith({ tools: { grep: { nudge: false } }, nudge: { exclude: ['glob'] } });
    expect(streakRun(engine, 5, 'grep').some((d) => d.action === 'nudge')).toBe(false);
    expect(streakRun(engine, 5, 'glob').some((d) => d.action === 'nudge')).toBe(false);
    // todo_write / todo_read are never nudged, whatever else is excluded (contract section 5)
    expect(streakRun(engine, 3, 'todo_read').some((d) => d.action === 'nudge')).toBe(false);
    const none = engineWith({ nudge: { exclude: [] } });
    expect(streakRun(none, 3, 'todo_write').some((d) => d.action === 'nudge')).toBe(false);
    expect(streakRun(none, 3, 'glob').some((d) => d.action === 'nudge')).toBe(true);
    // entries may be globs: * any run of characters, ? one character
    const globs = engineWith({ nudge: { exclude: ['mcp__*', 'fetch_?'] } });
    expect(streakRun(globs, 3, 'mcp__search').some((d) => d.action === 'nudge')).toBe(false);
    expect(streakRun(globs, 3, 'fetch_a').some((d) => d.action === 'nudge')).toBe(false);
    expect(streakRun(globs, 3, 'fetch_ab').some((d) => d.action === 'nudge')).toBe(true);
    expect(streakRun(globs, 3, 'xmcp__search').some((d) => d.action === 'nudge')).toBe(true);
  });

  it('counts failed attempts in the streak', () => {
    const engine = engineWith();
    const afters = [1, 2, 3].map(
      (i) => call(engine, 'fetch_url', { url: 'u' }, { ok: false, result: `e${i}` }).after!,
    );
    expect(afters.map((d) => d.streak)).toEqual([1, 2, 3]);
    expect(afters[2]!.findings.map((f) => f.axis)).toContain('streak');
  });

  it('LOOPGUARD_NUDGE_THRESHOLDS wins over CYBERINE_REPEAT_TOOL_THRESHOLDS', () => {
    const engine = engineWith({
      env: { LOOPGUARD_NUDGE_THRESHOLDS: '2', CYBERINE_REPEAT_TOOL_THRESHOLDS: '4' },
    });
    const nudged = streakRun(engine, 5).flatMap((d, i) => (d.action === 'nudge' ? [i + 1] : []));
    expect(nudged).toEqual([2]);
  });

  it('counts a blocked attempt in the streak', () => {
    const engine = engineWith({
      nudge: { thresholds: [9] },
      guardrails: { hardStop: true },
      tools: { deploy: { kind: 'mutating' } },
    });
    const run = [];
    for (let i = 0; i < 9; i++) {
      const { before, after } = call(engine, 'deploy', { env: 'prod' });
      run.push(after ?? before);
    }
    expect(run[8]!.action).toBe('block');
    expect(run[8]!.streak).toBe(9);
  });
});

describe('notice texts', () => {
  it('uses correct ordinals and tells a refused call from one that ran', async () => {
    const { nudgeText, findingText } = await import('../src/notice.js');
    expect(nudgeText('grep', 3, 1)).toContain('3rd call');
    expect(nudgeText('grep', 11, 1)).toContain('11th call');
    expect(nudgeText('grep', 22, 1)).toContain('22nd call');
    expect(findingText('repetition', 'block', 'bash', 8)).not.toContain('not executed');
    expect(findingText('repetition', 'block', 'bash', 8, true)).toContain('not executed');
  });
});

describe('beforeCall / afterCall pairing', () => {
  it('counts an attempt once per call, whether or not beforeCall saw it', () => {
    const engine = engineWith();
    // afterCall alone (a host that only reports results)
    const alone = [1, 2, 3].map((i) =>
      engine.afterCall({ tool: 'lookup_x', args: { q: 1 }, result: i }),
    );
    expect(alone.map((d) => d.streak)).toEqual([1, 2, 3]);
    expect(alone[2]!.level).toBe(1);
    // a fresh but equal args object in afterCall is the same call as the one beforeCall admitted
    engine.beforeCall({ tool: 'lookup_x', args: { q: 1 } });
    expect(engine.afterCall({ tool: 'lookup_x', args: { q: 1 }, result: 4 }).streak).toBe(4);
    // a pending call of another tool does not absorb this one
    engine.beforeCall({ tool: 'other', args: { q: 1 } });
    const next = engine.afterCall({ tool: 'lookup_x', args: { q: 1 }, result: 5 });
    expect(next.count).toBe(5);
    expect(next.streak).toBe(1);
  });

  it('keeps parallel calls apart: each afterCall reports its own attempt, nudges fire once', () => {
    const engine = engineWith();
    // a model's three identical parallel calls: every beforeCall first, then the results
    const args = () => ({ pattern: 'TODO', path: 'src' });
    const before = [1, 2, 3].map(() => engine.beforeCall({ tool: 'grep', args: args() }));
    expect(before.map((d) => d.streak)).toEqual([1, 2, 3]);
    const after = [1, 2, 3].map((i) =>
      engine.afterCall({ tool: 'grep', args: args(), result: `r${i}` }),
    );
    expect(after.map((d) => d.streak)).toEqual([1, 2, 3]);
    expect(after.map((d) => d.count)).toEqual([1, 2, 3]);
    expect(after.map((d) => d.action)).toEqual(['allow', 'allow', 'nudge']);
    // three different calls in flight each count once, whatever order their results come in
    const files = ['a', 'b', 'c'].map((path) => ({ path }));
    for (const a of files) engine.beforeCall({ tool: 'write_file', args: a });
    const done = [files[2]!, files[0]!, files[1]!].map((a) =>
      engine.afterCall({ tool: 'write_file', args: a, result: 'ok' }),
    );
    expect(done.map((d) => d.count)).toEqual([1, 1, 1]);
    expect(done.map((d) => d.signature)).toEqual(
      [files[2]!, files[0]!, files[1]!].map((a) => signatureOf('write_file', a)),
    );
  });

  it('cancelCall forgets an allowed call that never ran; its attempt still counts', () => {
    const engine = engineWith();
    // string arguments: every call's args are equal (===), so only cancelling keeps them apart
    const args = '{"cmd":"npm test"}';
    expect(engine.beforeCall({ tool: 'run_tests', args }).streak).toBe(1);
    engine.cancelCall({ tool: 'run_tests', args });
    const after = [2, 3, 4].map((i) => {
      engine.beforeCall({ tool: 'run_tests', args });
      return engine.afterCall({ tool: 'run_tests', args, result: `r${i}` });
    });
    expect(after.map((d) => d.streak)).toEqual([2, 3, 4]);
    expect(after.map((d) => d.action)).toEqual(['allow', 'nudge', 'allow']);
    // cancelling takes the newest of equal calls in flight, and nothing when none is
    const objects = [{ q: 1 }, { q: 1 }];
    for (const a of objects) engine.beforeCall({ tool: 'lookup_z', args: a });
    engine.cancelCall({ tool: 'lookup_z', args: { q: 1 } });
    expect(engine.afterCall({ tool: 'lookup_z', args: objects[0], result: 'r' }).streak).toBe(1);
    engine.cancelCall({ tool: 'lookup_z', args: { q: 1 } });
    engine.cancelCall({ scope: 'nowhere', tool: 'lookup_z', args: {} });
    expect(engine.scopeCount()).toBe(1);
  });

  it('a blocked call does not disturb the calls in flight', () => {
    const engine = engineWith({
      guardrails: { hardStop: true, hardStopAfter: { repetition: 2 } },
      tools: { deploy: { kind: 'mutating' } },
    });
    call(engine, 'deploy', { env: 'prod' });
    call(engine, 'deploy', { env: 'prod' });
    const other = { q: 'x' };
    engine.beforeCall({ tool: 'lookup_y', args: other });
    expect(engine.beforeCall({ tool: 'deploy', args: { env: 'prod' } }).action).toBe('block');
    const after = engine.afterCall({ tool: 'lookup_y', args: other, result: 'r' });
    expect(after.count).toBe(1);
    expect(after.streak).toBe(1);
  });
});
