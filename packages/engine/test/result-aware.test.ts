// Result-aware repetition counting, pagers and answer exits: what the real runs of
// bench/trajectories showed (docs/engine.md, "Measured on real runs").
import { describe, expect, it } from 'vitest';
import { lastProgram } from '../src/answer-exits.js';
import { builtinKind } from '../src/policies.js';
import { axes, call, engineWith, repeat } from './helpers.js';

const RUN = { command: 'python reproduce.py' };
const quiet = { nudge: { thresholds: [] } };

/** `python reproduce.py` after an edit each time, with the results given. */
function rerunsAfterEdits(engine: ReturnType<typeof engineWith>, results: string[]) {
  return results.map((result, i) => {
    call(engine, 'edit', { path: 'a.py', text: `v${i}` }, { result: 'edited' });
    return call(engine, 'bash', RUN, { result }).after;
  });
}

describe('repetitionCount: seen-result (the default)', () => {
  it('does not count reruns after edits whose result changes each time', () => {
    const engine = engineWith(quiet);
    const runs = rerunsAfterEdits(
      engine,
      Array.from({ length: 10 }, (_, i) => `output ${i}`),
    );
    expect(runs.flatMap(axes)).not.toContain('repetition');
    expect(runs.map((d) => d?.action)).toEqual(Array(10).fill('allow'));
  });

  it('counts reruns that return a result seen before, also when it alternates', () => {
    const engine = engineWith(quiet);
    const runs = rerunsAfterEdits(engine, ['A', 'B', 'A', 'B', 'A', 'B', 'A']);
    // A: 1 (the first success), B: still 1 (new), then A, B, A, B, A seen before: 2 to 6
    expect(runs.map((d) => d?.action)).toEqual([
      'allow',
      'allow',
      'allow',
      'allow',
      'allow',
      'warn',
      'warn',
    ]);
    expect(axes(runs[5])).toContain('repetition');
  });

  it('counts a call that repeats the one before it, whatever it returns', () => {
    const engine = engineWith({ ...quiet, guardrails: { hardStop: true } });
    const actions = repeat(
      engine,
      9,
      'edit',
      { path: 'a.java', text: 'import x;' },
      {
        result: (i: number) => `[File: a.java (${i + 2} lines total)]`,
      },
    );
    expect(actions).toEqual([
      'allow',
      'allow',
      'allow',
      'allow',
      'warn',
      'warn',
      'warn',
      'block',
      'blocked',
    ]);
  });

  it('repetitionCount every restores reference 002: every success counts', () => {
    const engine = engineWith({ ...quiet, guardrails: { repetitionCount: 'every' } });
    const runs = rerunsAfterEdits(
      engine,
      Array.from({ length: 5 }, (_, i) => `output ${i}`),
    );
    expect(runs[4]?.action).toBe('warn');
    expect(axes(runs[4])).toContain('repetition');
  });

  it('repetitionCount same-result restarts the count when the result changes', () => {
    const engine = engineWith({ ...quiet, guardrails: { repetitionCount: 'same-result' } });
    const runs = rerunsAfterEdits(engine, ['A', 'A', 'A', 'B', 'B', 'B', 'B', 'B']);
    expect(runs.map((d) => d?.action)).toEqual([
      'allow',
      'allow',
      'allow',
      'allow',
      'allow',
      'allow',
      'allow',
      'warn',
    ]);
  });
});

describe('pagers', () => {
  it('are the scroll and next-page tools', () => {
    for (const tool of ['scroll_down', 'scroll_up', 'page_down', 'next_page', 'Scroll_Left']) {
      expect(builtinKind(tool)).toBe('pager');
    }
    expect(builtinKind('goto')).toBeUndefined();
  });

  it('paging on through a long file is progress: no repetition finding', () => {
    const engine = engineWith({ ...quiet, guardrails: { hardStop: true } });
    const actions = repeat(
      engine,
      20,
      'scroll_down',
      {},
      {
        result: (i: number) => `[File: big.py] lines ${i * 100}-${i * 100 + 99}`,
      },
    );
    expect(actions).toEqual(Array(20).fill('allow'));
  });

  it('paging back over windows already shown counts, and so does the end of the file', () => {
    const engine = engineWith({ ...quiet, guardrails: { hardStop: true } });
    const windows = ['w1', 'w2', 'w1', 'w2', 'w1', 'w2', 'w1', 'w2'];
    const decisions = windows.map(
      (w, i) => call(engine, i % 2 === 0 ? 'scroll_up' : 'scroll_down', {}, { result: w }).after,
    );
    expect(decisions.map((d) => d?.action)).not.toContain('block');
    const end = repeat(engine, 9, 'page_down', {}, { result: '(end of file)' });
    expect(end.slice(4)).toEqual(['warn', 'warn', 'warn', 'block', 'blocked']);
  });

  it('with repetitionCount every, a pager counts every success as reference 002 does', () => {
    const engine = engineWith({ ...quiet, guardrails: { repetitionCount: 'every' } });
    const actions = repeat(engine, 5, 'scroll_down', {}, { result: (i: number) => `w${i}` });
    expect(actions[4]).toBe('warn');
  });
});

describe('answer exits', () => {
  it('reads the program that decides the exit status', () => {
    expect(lastProgram('grep -r "x" src')).toBe('grep');
    expect(lastProgram('cd /repo && sudo timeout 10 /usr/bin/diff a b')).toBe('diff');
    expect(lastProgram('cat log | grep error')).toBe('grep');
    expect(lastProgram('grep x a || echo none')).toBe('echo');
    expect(lastProgram('FOO=1 python3 -m pylint pkg')).toBe('pylint');
    expect(lastProgram('grep a f\npython run.py')).toBe('python');
    expect(lastProgram('   ')).toBeUndefined();
    expect(lastProgram(`${'x'.repeat(100_000)}; ruff check .`)).toBe('ruff');
  });

  it('a grep without match or a linter with findings is not a failure of a shell tool', () => {
    const engine = engineWith({ ...quiet, guardrails: { hardStop: true } });
    const calls = [
      { command: 'grep -n "class Foo" a.py' },
      { command: 'grep -n "class Foo" b.py' },
      { command: 'cd src && pylint mod.py' },
      { command: 'diff old.txt new.txt' },
      { command: 'grep -n "def foo" a.py' },
      { command: 'grep -rn "Foo(" tests' },
      { command: 'flake8 src' },
      { command: 'grep -n Bar a.py' },
      { command: 'grep -n Baz a.py' },
    ];
    const after = calls.map((args) => call(engine, 'bash', args, { ok: false, result: '' }).after);
    expect(after.flatMap(axes)).toEqual([]);
  });

  it('other programs and other tools still fail', () => {
    const engine = engineWith(quiet);
    const make = call(engine, 'bash', { command: 'make' }, { ok: false }).after;
    call(engine, 'bash', { command: 'make' }, { ok: false });
    const again = call(engine, 'bash', { command: 'make' }, { ok: false }).after;
    expect(make?.action).toBe('allow');
    expect(axes(again)).toContain('exact_failure');
    const search = engineWith(quiet);
    call(search, 'grep', { pattern: 'x' }, { ok: false });
    call(search, 'grep', { pattern: 'x' }, { ok: false });
    expect(axes(call(search, 'grep', { pattern: 'x' }, { ok: false }).after)).toContain(
      'exact_failure',
    );
  });

  it('answerExits [] counts every non-zero exit as a failure', () => {
    const engine = engineWith({ ...quiet, guardrails: { answerExits: [] } });
    call(engine, 'bash', 'grep x a.py', { ok: false });
    call(engine, 'bash', 'grep x a.py', { ok: false });
    const again = call(engine, 'bash', 'grep x a.py', { ok: false }).after;
    expect(axes(again)).toContain('exact_failure');
  });

  it('with repetitionCount every, an answer exit is not counted as a success', () => {
    const engine = engineWith({ ...quiet, guardrails: { repetitionCount: 'every' } });
    const actions = repeat(engine, 6, 'bash', { command: 'grep x a.py' }, { ok: false });
    expect(actions).toEqual(Array(6).fill('allow'));
  });
});
