import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

// The keys of a replay line are a closed set ({"scope"?, "tool", "args"?, "ok"?, "result"?,
// "ran"?} or {"reset"}). A typo such as "arg" for "args" was ignored, and the call replayed
// without its arguments: a different signature, and no error to say so.

const bin = fileURLToPath(new URL('../bin/loopguard.js', import.meta.url));

function replay(lines: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-replay-keys-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'session.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  const run = spawnSync(process.execPath, [bin, 'replay', '--json', path], { encoding: 'utf8' });
  const streaks = run.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { streak: number }).streak);
  return { path, status: run.status, stderr: run.stderr, streaks };
}

describe('loopguard replay: keys a line does not have', () => {
  it('reports an unknown key of a call by line number and name, and replays the other lines', () => {
    const call = '{"tool":"grep","args":{"q":1}}';
    const { path, status, stderr, streaks } = replay([
      call,
      '{"tool":"grep","arg":{"q":1}}',
      call,
      '{"scope":"s","tool":"grep","args":{"q":1},"reslt":"x","okay":true}',
    ]);
    expect(status).toBe(2);
    expect(streaks).toEqual([1, 2]);
    expect(stderr).toContain(
      `${path}:2: unknown key "arg" (a call has "scope", "tool", "args", "ok", "result" and "ran")`,
    );
    expect(stderr).toContain(`${path}:4: unknown keys "reslt", "okay" (a call has`);
    expect(stderr).toContain('2 bad line(s)');
  });

  it('names an unknown key before a missing "tool" (a misspelt "tool")', () => {
    const { path, stderr } = replay(['{"tol":"grep"}']);
    expect(stderr).toContain(`${path}:1: unknown key "tol"`);
  });

  it('reports keys beside "reset", which a new turn does not have', () => {
    const { path, status, stderr, streaks } = replay([
      '{"tool":"grep"}',
      '{"reset":"default","tool":"grep"}',
      '{"tool":"grep"}',
    ]);
    expect(status).toBe(2);
    // the bad line is skipped whole: no reset, so the streak goes on
    expect(streaks).toEqual([1, 2]);
    expect(stderr).toContain(`${path}:2: unknown key "tool" (a new turn has "reset" only)`);
  });

  it('still takes every documented key', () => {
    const { status, stderr, streaks } = replay([
      '{"scope":"s","tool":"grep","args":{"q":1},"ok":true,"result":"r","ran":true}',
      '{"reset":"s"}',
      '{"scope":"s","tool":"grep","args":{"q":1},"ran":false}',
    ]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(streaks).toEqual([1, 1]);
  });
});
