import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { checkConfig } from '../src/config/check.js';
import { parseConfigText } from '../src/config/file.js';
import { loadConfig } from '../src/config/resolve.js';
import { createEngine } from '../src/engine.js';

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-config-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('configuration layers', () => {
  it('merges object over environment over file over defaults', () => {
    const cwd = dirWith({
      'loopguard.config.json': JSON.stringify({
        guardrails: { hardStop: true, warnings: false, warnAfter: { repetition: 3, poll: 4 } },
        scopes: { max: 50 },
      }),
    });
    const { config, file } = loadConfig({
      cwd,
      env: { LOOPGUARD_WARNINGS: 'true', LOOPGUARD_SCOPES_MAX: '70' },
      guardrails: { warnAfter: { poll: 6 } },
    });
    expect(file).toBe(join(cwd, 'loopguard.config.json'));
    expect(config.guardrails.hardStop).toBe(true); // file
    expect(config.guardrails.warnings).toBe(true); // env over file
    expect(config.guardrails.warnAfter.repetition).toBe(3); // file
    expect(config.guardrails.warnAfter.poll).toBe(6); // object over file
    expect(config.guardrails.warnAfter.exactFailure).toBe(3); // default
    expect(config.scopes.max).toBe(70); // env over file
  });

  it('finds loopguard.config.yaml, or the file LOOPGUARD_CONFIG names', () => {
    const cwd = dirWith({
      'loopguard.config.yaml': 'nudge:\n  thresholds: [2, 4]\n',
      'other.yaml': 'nudge:\n  thresholds: "6"\n',
    });
    expect(loadConfig({ cwd, env: {} }).config.nudge.fallbackThresholds).toEqual([2, 4]);
    expect(
      loadConfig({ cwd, env: { LOOPGUARD_CONFIG: 'other.yaml' } }).config.nudge.fallbackThresholds,
    ).toEqual([6]);
    expect(loadConfig({ cwd, env: {}, configFile: false }).file).toBeUndefined();
  });

  it('lets the environment thresholds win over the file thresholds at call time', () => {
    const cwd = dirWith({ 'loopguard.config.json': '{"nudge":{"thresholds":[2]}}' });
    const env: Record<string, string | undefined> = {};
    const engine = createEngine({ cwd, env, onDiagnostic: () => {} });
    const streakAt = () => {
      engine.resetScope();
      const levels = [];
      for (let i = 0; i < 4; i++) {
        engine.beforeCall({ tool: 'x', args: {} });
        levels.push(engine.afterCall({ tool: 'x', args: {}, result: i }).level ?? 0);
      }
      return levels;
    };
    expect(streakAt()).toEqual([0, 1, 0, 0]);
    env.LOOPGUARD_NUDGE_THRESHOLDS = '3';
    expect(streakAt()).toEqual([0, 0, 1, 0]);
  });

  it('reports invalid values once and keeps the lower layer', () => {
    const messages: string[] = [];
    const engine = createEngine({
      configFile: false,
      env: { LOOPGUARD_HARD_STOP: 'maybe' },
      guardrails: { warnAfter: { repetition: -2 } },
      onDiagnostic: (m) => messages.push(m),
    });
    expect(engine.config.guardrails.warnAfter.repetition).toBe(5);
    expect(engine.config.guardrails.hardStop).toBe(false);
    expect(messages).toHaveLength(2);
    expect(messages.join('\n')).toMatch(/LOOPGUARD_HARD_STOP/);
    expect(messages.join('\n')).toMatch(/guardrails\.warnAfter\.repetition/);
  });
});

describe('reference 002 compatibility', () => {
  it('reads a file that starts with a byte-order mark', () => {
    for (const name of ['c.json', 'c.yaml']) {
      const text = name.endsWith('.json')
        ? '\ufeff{"guardrails":{"hardStop":true}}'
        : '\ufeffguardrails:\n  hardStop: true\n';
      const { config, issues } = parseConfigText(text, name);
      expect(issues).toEqual([]);
      expect(config.guardrails?.hardStop).toBe(true);
    }
  });

  it('reads nested sections, flat legacy keys, hard_stop_enabled and warnings_enabled; nested wins', () => {
    const yaml = [
      'tool_loop_guardrails:',
      '  hard_stop_enabled: true',
      '  warnings_enabled: false',
      '  tool_repetition_warn_after: 4',
      '  exact_failure_block_after: 9',
      '  same_tool_failure_halt_after: 12',
      '  idempotent_no_progress_warn_after: 3',
      '  warn_after:',
      '    tool_repetition: 6',
      '  hard_stop_after:',
      '    exact_failure: 7',
      '    idempotent_no_progress: 4',
    ].join('\n');
    const { config, issues } = parseConfigText(yaml, 'loopguard.config.yaml');
    expect(issues).toEqual([]);
    expect(config.guardrails).toMatchObject({
      hardStop: true,
      warnings: false,
      warnAfter: { repetition: 6, noProgress: 3 },
      hardStopAfter: { exactFailure: 7, sameToolFailure: 12, noProgress: 4 },
    });
  });

  it('names each bad key and value', () => {
    const { issues } = parseConfigText(
      'tool_loop_guardrails:\n  hard_stop_enabled: sometimes\n  warn_after:\n    tool_repetiton: 3\n  exact_failure_warn_after: 0\n',
      'c.yaml',
    );
    const text = issues.map((i) => i.message).join('\n');
    expect(text).toContain('tool_loop_guardrails.hard_stop_enabled');
    expect(text).toContain('tool_loop_guardrails.warn_after.tool_repetiton');
    expect(text).toContain(
      'tool_loop_guardrails.exact_failure_warn_after must be a positive integer, got 0',
    );
  });

  it('names the value of a section that is not a mapping', () => {
    const nested = parseConfigText('tool_loop_guardrails:\n  warn_after: 5\n', 'c.yaml');
    expect(nested.issues.map((i) => i.message)).toEqual([
      'tool_loop_guardrails.warn_after must be a mapping of axis to integer, got 5',
    ]);
    const root = parseConfigText('tool_loop_guardrails: [3, 5]\n', 'c.yaml');
    expect(root.issues.map((i) => i.message)).toEqual([
      'tool_loop_guardrails must be a mapping, got [3,5]',
    ]);
  });
});

describe('reference 002 compatibility, as its own reader accepts it', () => {
  it('reads the upstream flat keys, digit strings and yes/off switches; an empty section is the defaults', () => {
    const yaml = [
      'tool_loop_guardrails:',
      '  hard_stop_enabled: yes',
      '  warnings_enabled: off',
      '  no_progress_warn_after: 3',
      '  no_progress_block_after: "7"',
      '  tool_repetition_warn_after: "4"',
    ].join('\n');
    const { config, issues } = parseConfigText(yaml, 'c.yaml');
    expect(issues).toEqual([]);
    expect(config.guardrails).toMatchObject({
      hardStop: true,
      warnings: false,
      warnAfter: { noProgress: 3, repetition: 4 },
      hardStopAfter: { noProgress: 7 },
    });
    const empty = parseConfigText('tool_loop_guardrails:\n', 'c.yaml');
    expect(empty.issues).toEqual([]);
    expect(empty.config.guardrails).toEqual({ warnAfter: {}, hardStopAfter: {} });
  });

  it('keeps the native thresholds of the same file, which win key by key', () => {
    const yaml = [
      'tool_loop_guardrails:',
      '  hard_stop_enabled: true',
      '  tool_repetition_warn_after: 4',
      '  exact_failure_warn_after: 3',
      'guardrails:',
      '  warnAfter: { repetition: 6, poll: 12 }',
    ].join('\n');
    const { config, issues } = parseConfigText(yaml, 'c.yaml');
    expect(issues).toEqual([]);
    expect(config.guardrails).toEqual({
      hardStop: true,
      warnAfter: { repetition: 6, exactFailure: 3, poll: 12 },
      hardStopAfter: {},
    });
  });
});

describe('environment layer', () => {
  it('reports scope bounds that are not positive integers and keeps the lower layer', () => {
    const { config, issues } = loadConfig({
      configFile: false,
      env: { LOOPGUARD_SCOPES_MAX: '0', LOOPGUARD_SCOPES_IDLE_MS: '99999999999999999999' },
    });
    expect(config.scopes).toEqual({ max: 10_000, idleMs: 3_600_000 });
    expect(issues.map((i) => i.message)).toEqual([
      'LOOPGUARD_SCOPES_MAX="0" is not valid; ignored',
      'LOOPGUARD_SCOPES_IDLE_MS="99999999999999999999" is not valid; ignored',
    ]);
  });
});

describe('checkConfig (strict)', () => {
  it('accepts a complete native configuration, every key of contract section 5 kept', () => {
    // the six axis keys of warnAfter / hardStopAfter, each with its own value
    const axes = (base: number) => ({
      repetition: base + 1,
      exactFailure: base + 2,
      sameToolFailure: base + 3,
      noProgress: base + 4,
      cycle: base + 5,
      poll: base + 6,
    });
    const complete = {
      nudge: { thresholds: [3, 5, 8], exclude: ['todo_read'] },
      guardrails: { warnings: true, hardStop: true, warnAfter: axes(10), hardStopAfter: axes(20) },
      tools: {
        grep: {
          kind: 'idempotent',
          ignoreArgs: ['timeout'],
          failureTolerant: false,
          nudge: true,
          warnAfter: axes(30),
          hardStopAfter: axes(40),
        },
      },
      scopes: { max: 10, idleMs: 1000 },
    };
    const { config, issues } = checkConfig(complete);
    expect(issues).toEqual([]);
    expect(config).toEqual(complete);
  });

  it('names every bad key and value', () => {
    const { issues } = checkConfig({
      nudge: { thresholds: [5, 3] },
      guardrails: { hardstop: true, warnAfter: { repetition: 'five' } },
      tools: { grep: { kind: 'readonly', ignoreArgs: 'timeout' } },
      scopes: { max: 0 },
      extra: 1,
    });
    expect(issues.map((i) => i.path).sort()).toEqual([
      'extra',
      'guardrails.hardstop',
      'guardrails.warnAfter.repetition',
      'nudge.thresholds',
      'scopes.max',
      'tools.grep.ignoreArgs',
      'tools.grep.kind',
    ]);
    expect(issues.find((i) => i.path === 'tools.grep.kind')?.message).toContain('"readonly"');
  });
});

describe('values JSON cannot write', () => {
  it('are reported, not thrown: a recursive YAML alias, a bigint, a non-finite number', () => {
    const recursive = parseConfigText(
      'guardrails:\n  warnAfter: &x\n    repetition: *x\nnudge:\n  thresholds: &t [3, *t]\n',
      'loopguard.config.yaml',
    );
    expect(recursive.issues.map((i) => i.path)).toEqual([
      'nudge.thresholds',
      'guardrails.warnAfter.repetition',
    ]);
    expect(recursive.issues[1]?.message).toMatch(/must be a positive integer, got .*Circular/);
    const { issues } = checkConfig({
      guardrails: {
        warnAfter: { repetition: 10n, cycle: Number.POSITIVE_INFINITY, poll: Number.NaN },
      },
      tools: { x: { kind: 5n } },
    });
    expect(issues.map((i) => i.message)).toEqual([
      'guardrails.warnAfter.repetition must be a positive integer, got 10n',
      'guardrails.warnAfter.cycle must be a positive integer, got Infinity',
      'guardrails.warnAfter.poll must be a positive integer, got NaN',
      'tools.x.kind must be one of idempotent, mutating, poller, pager, got 5n',
    ]);
  });
});

describe('YAML warnings', () => {
  it('are issues of the file, reported through onDiagnostic, not process warnings on stderr', () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    onTestFinished(() => emitted.mockRestore());
    const { config, issues } = parseConfigText(
      '%FOO bar\n---\nguardrails:\n  hardStop: !weird true\n  warnings: false\n',
      'loopguard.config.yaml',
    );
    expect(emitted).not.toHaveBeenCalled();
    expect(issues.map((i) => i.message)).toEqual([
      'loopguard.config.yaml: Unknown directive %FOO at line 1, column 1',
      'loopguard.config.yaml: Unresolved tag: !weird at line 4, column 13',
      'guardrails.hardStop must be true or false, got "true"',
    ]);
    expect(config.guardrails?.warnings).toBe(false);
  });
});
