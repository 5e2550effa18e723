import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const bin = fileURLToPath(new URL('../bin/loopguard.js', import.meta.url));

/** Runs `loopguard config check` on a file holding `text`. */
function check(name: string, text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-config-check-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  writeFileSync(path, text);
  const run = spawnSync(process.execPath, [bin, 'config', 'check', path], { encoding: 'utf8' });
  return { path, status: run.status, stderr: run.stderr };
}

describe('loopguard config check: JSON syntax errors', () => {
  // Node's JSON.parse names a character offset ("at position 44"), which no editor shows.
  it('names the line and column of the error, not the character offset', () => {
    const text = '{\n  "guardrails": {\n    "hardStop": true,\n  }\n}\n';
    const { path, status, stderr } = check('trailing.json', text);
    expect(status).toBe(1);
    expect(stderr).toContain(
      `${path}: cannot parse ${path}: Expected double-quoted property name in JSON at line 4, column 3\n`,
    );
    expect(stderr).not.toContain('position');
  });

  it('counts CRLF line ends, a byte-order mark and a cut file the same way', () => {
    const crlf = check('crlf.json', '{\r\n  "nudge": {\r\n    "exclude": ["a" "b"]\r\n}}');
    expect(crlf.stderr).toContain('at line 3, column 21');
    const bom = check('bom.json', '\ufeff{"nudge" 1}');
    expect(bom.stderr).toContain('at line 1, column 10');
    const cut = check('cut.json', '{\n  "nudge": {"thresholds": [3, 5]}\n');
    expect(cut.stderr).toContain('at line 3, column 1');
  });

  // An unexpected token has no position in Node's message, only an excerpt of the text (line
  // breaks and all): the error is located in the text instead.
  it('names the line and column of an unexpected token too, without an excerpt', () => {
    const text = '{\n  "tools": {\n    "grep": {"kind": idempotent}\n  }\n}\n';
    const { path, stderr } = check('bare.json', text);
    expect(stderr).toBe(
      `${path}: cannot parse ${path}: Unexpected token "idempotent" in JSON at line 3, column 22\n` +
        `${path}: 1 problem(s)\n`,
    );
    const tru = check('tru.json', '{\n "nudge": {\n  "exclude": tru\n }\n}');
    expect(tru.stderr).toContain('Unexpected token "tru" in JSON at line 3, column 14\n');
  });
});

describe('loopguard config check: nudge threshold messages', () => {
  it('reads as one sentence each, without a repeated word', () => {
    const cases: [string, string][] = [
      ['[5, 3]', 'nudge.thresholds: not strictly ascending (5 then 3)'],
      ['"3,x"', 'nudge.thresholds: "x" is not a positive integer'],
      [
        '[1]',
        'nudge.thresholds: 1 is below 2 (a threshold counts calls in a row, and the first call repeats nothing)',
      ],
      ['5', 'nudge.thresholds must be a list of integers or a string like "3,5,8", got 5'],
    ];
    for (const [value, message] of cases) {
      const { path, status, stderr } = check('t.json', `{"nudge": {"thresholds": ${value}}}`);
      expect(status, value).toBe(1);
      expect(stderr, value).toBe(`${path}: ${message}\n${path}: 1 problem(s)\n`);
    }
  });
});
