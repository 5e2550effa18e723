import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runReplay } from '../src/replay-command.js';

// Tool names and scopes come from whoever wrote the recording (any OTLP client of a collector):
// written raw, an escape sequence in one retitled or cleared the terminal of the operator
// reading the table, and a newline split a row.

const ESC = '\u001b';
/** The control characters in a text, besides the newlines and tabs of the table itself. */
const controls = (text: string) =>
  [...text].filter((c) => {
    const code = c.charCodeAt(0);
    return c !== '\n' && c !== '\t' && (code < 0x20 || (code >= 0x7f && code <= 0x9f));
  });

async function replayTable(lines: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-terminal-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'session.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: [] as string[], err: [] as string[] };
  out.on('data', (c: Buffer) => chunks.out.push(c.toString()));
  err.on('data', (c: Buffer) => chunks.err.push(c.toString()));
  const code = await runReplay({ file: path, json: false, otlp: false, all: true, out, err });
  return { code, stdout: chunks.out.join(''), stderr: chunks.err.join('') };
}

describe('replay table on a terminal', () => {
  it('writes control characters of names, scopes and bad lines escaped', async () => {
    const tool = `${ESC}]0;x\u0007${ESC}[2J`;
    const call = JSON.stringify({ scope: `a\nb${ESC}[31m`, tool, args: { q: 1 } });
    const { code, stdout, stderr } = await replayTable([call, call, `x${ESC}[2J`]);
    expect(code).toBe(2);
    expect(controls(stdout)).toEqual([]);
    expect(controls(stderr)).toEqual([]);
    expect(stdout).toContain('\\x1b]0;x\\x07');
    // header, two rows, then the summary: no row split in two
    const rows = stdout.split('\n').filter((l) => /^\d+ /.test(l));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('a\\nb');
  });
});

describe('config messages on a terminal', () => {
  const bin = fileURLToPath(new URL('../bin/loopguard.js', import.meta.url));

  it('config check and replay write the keys and values of a config file escaped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-terminal-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const config = join(dir, 'loopguard.config.json');
    writeFileSync(
      config,
      JSON.stringify({ [`${ESC}]0;x\u0007`]: 1, guardrails: { hardStop: `${ESC}[2J` } }),
    );
    const check = spawnSync(process.execPath, [bin, 'config', 'check', config], {
      encoding: 'utf8',
    });
    expect(check.status).toBe(1);
    expect(controls(check.stderr)).toEqual([]);
    expect(check.stderr).toContain('unknown key \\x1b]0;x\\x07');
    expect(check.stderr).toContain('guardrails.hardStop must be true or false');
    // replay without --config loads the file of the working directory and reports its problems
    const session = join(dir, 'session.jsonl');
    writeFileSync(session, '{"tool":"grep"}\n');
    const replay = spawnSync(process.execPath, [bin, 'replay', '--json', session], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(replay.status).toBe(0);
    expect(replay.stderr).toContain('unknown key \\x1b]0;x\\x07');
    expect(controls(replay.stderr)).toEqual([]);
  });
});
