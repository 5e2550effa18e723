// same_error: the same error text (digits aside) from one tool, whatever the arguments and
// whatever succeeded in between, as in `javac` failing between successful edits; only a call that
// failed with that error succeeding starts it again.
import { describe, expect, it } from 'vitest';
import { errorKey } from '../src/signature/index.js';
import { axes, call, engineWith } from './helpers.js';

const quiet = { nudge: { thresholds: [] } };
const notFound = (line: number) => ({
  ok: false,
  result: `/bin/bash: line ${line}: javac: command not found`,
});

describe('same_error', () => {
  it('reads digits as one and ignores whitespace runs, within the first 512 characters', () => {
    expect(errorKey('line 27424:  javac: not found')).toBe(errorKey('line 9: javac: not found'));
    expect(errorKey('javac: not found')).not.toBe(errorKey('java: not found'));
    expect(errorKey(`E: ${'x'.repeat(600)} a`)).toBe(errorKey(`E: ${'x'.repeat(600)} b`));
    expect(errorKey('')).toBeUndefined();
    expect(errorKey({ code: 1 })).toBeUndefined();
  });

  it('halts a failing command repeated between successful edits of another tool', () => {
    const engine = engineWith({ ...quiet, guardrails: { hardStop: true } });
    const runs = [];
    for (let i = 0; i < 4; i++) {
      call(engine, 'edit', { path: 'A.java', text: `v${i}` }, { result: `edited ${i}` });
      runs.push(call(engine, 'bash', { command: 'javac A.java' }, notFound(100 + i)).after);
    }
    expect(runs.map((d) => d?.action)).toEqual(['allow', 'allow', 'warn', 'halt']);
    expect(runs[3]?.findings.map((f) => f.axis)).toContain('same_error');
  });

  it('counts the same error across different arguments', () => {
    const engine = engineWith(quiet);
    const names = ['a.py', 'b.py', 'c.py'];
    const after = names.map(
      (name) =>
        call(
          engine,
          'open',
          { path: name },
          { ok: false, result: `Error: ${name.length} not found` },
        ).after,
    );
    expect(axes(after[2])).toContain('same_error');
  });

  it('halts failures interleaved with unrelated successes of the same tool', () => {
    const engine = engineWith({ ...quiet, guardrails: { hardStop: true } });
    const timedOut = { ok: false, result: 'EXECUTION TIMED OUT' };
    const runs = [];
    for (const pkg of ['default-jdk', 'openjdk-11-jdk', 'maven', 'libssl-dev']) {
      // a successful `apt-get update` of the same tool between the failing installs
      call(engine, 'bash', { command: 'sudo apt-get update' }, { result: 'Hit:1 jammy InRelease' });
      runs.push(call(engine, 'bash', { command: `sudo apt-get install ${pkg}` }, timedOut).after);
    }
    expect(runs.map((d) => d?.action)).toEqual(['allow', 'allow', 'warn', 'halt']);
    expect(runs[3]).toMatchObject({ action: 'halt', axis: 'same_error' });
  });

  it('starts again when a call that failed with it succeeds, and other errors count apart', () => {
    const engine = engineWith(quiet);
    call(engine, 'bash', { command: 'javac A.java' }, notFound(1));
    call(engine, 'bash', { command: 'javac A.java' }, notFound(2));
    call(engine, 'bash', { command: 'ls' }, { result: 'A.java' });
    call(
      engine,
      'bash',
      { command: 'mvn -q test' },
      { ok: false, result: 'mvn: command not found' },
    );
    const third = call(engine, 'bash', { command: 'javac B.java' }, notFound(3)).after;
    expect(axes(third)).toContain('same_error');
    expect(third?.findings.find((f) => f.axis === 'same_error')?.count).toBe(3);
    // javac B.java now works: the error it failed with starts again
    call(engine, 'bash', { command: 'javac B.java' }, { result: '' });
    const again = call(engine, 'bash', { command: 'javac C.java' }, notFound(4)).after;
    expect(axes(again)).not.toContain('same_error');
    call(engine, 'bash', { command: 'javac C.java' }, notFound(5));
    const mvn = call(
      engine,
      'bash',
      { command: 'mvn test' },
      { ok: false, result: 'mvn: command not found' },
    );
    expect(mvn.after?.findings.find((f) => f.axis === 'same_error')).toBeUndefined();
  });

  it('does not apply to failures without error text or to failure-tolerant tools', () => {
    const engine = engineWith({ ...quiet, tools: { flaky: { failureTolerant: true } } });
    const bare = [1, 2, 3, 4].map((i) => call(engine, 'deploy', { v: i }, { ok: false }).after);
    expect(bare.flatMap(axes)).not.toContain('same_error');
    const tolerant = [1, 2, 3, 4].map(
      (i) => call(engine, 'flaky', { v: i }, { ok: false, result: 'timeout' }).after,
    );
    expect(tolerant.flatMap(axes)).not.toContain('same_error');
  });
});
