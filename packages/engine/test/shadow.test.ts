import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { checkConfig } from '../src/config/check.js';
import { loadConfig } from '../src/config/resolve.js';
import type { Decision, Engine } from '../src/types.js';
import { call, engineWith } from './helpers.js';

function dirWith(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-mode-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, name), text);
  return dir;
}

describe('mode', () => {
  it('is enforce by default; shadow from the file, LOOPGUARD_MODE or the object, in that order', () => {
    expect(loadConfig({ configFile: false, env: {} }).config.mode).toBe('enforce');
    const cwd = dirWith('loopguard.config.yaml', 'mode: shadow\n');
    expect(loadConfig({ cwd, env: {} }).config.mode).toBe('shadow');
    expect(loadConfig({ cwd, env: { LOOPGUARD_MODE: ' Enforce ' } }).config.mode).toBe('enforce');
    expect(loadConfig({ configFile: false, env: { LOOPGUARD_MODE: 'shadow' } }).config.mode).toBe(
      'shadow',
    );
    expect(
      loadConfig({ configFile: false, env: { LOOPGUARD_MODE: 'shadow' }, mode: 'enforce' }).config
        .mode,
    ).toBe('enforce');
  });

  it('reports a mode that is neither and keeps the lower layer', () => {
    const fromEnv = loadConfig({ configFile: false, env: { LOOPGUARD_MODE: 'dry-run' } });
    expect(fromEnv.config.mode).toBe('enforce');
    expect(fromEnv.issues.map((i) => i.message)).toEqual([
      'LOOPGUARD_MODE="dry-run" is not valid; ignored',
    ]);
    const checked = checkConfig({ mode: 'audit' });
    expect(checked.config).toEqual({});
    expect(checked.issues).toEqual([
      { path: 'mode', value: 'audit', message: 'mode must be one of enforce, shadow, got "audit"' },
    ]);
    expect(checkConfig({ mode: 'shadow' })).toEqual({ config: { mode: 'shadow' }, issues: [] });
  });
});

/** Runs the same calls through an engine as a host does (a blocked call is not run). */
function run(engine: Engine): Decision[] {
  const decisions: Decision[] = [];
  const calls: [string, unknown, boolean][] = [
    ['read', { path: 'a' }, true],
    ...Array.from({ length: 7 }, (): [string, unknown, boolean] => ['fetch', { url: 'x' }, false]),
    ['read', { path: 'b' }, true],
  ];
  for (const [tool, args, ok] of calls) {
    const { before, after } = call(engine, tool, args, { ok, result: ok ? 'text' : undefined });
    decisions.push(after ?? before);
  }
  return decisions;
}

describe('shadow mode', () => {
  const config = { guardrails: { hardStop: true } };

  it('computes the decisions enforce mode computes, each marked shadow', () => {
    const enforced = run(engineWith(config));
    const shadowed = run(engineWith({ ...config, mode: 'shadow' }));
    // the run has warnings, then blocks (a stop before the call) and a halt in enforce mode
    const actions = new Set(enforced.map((d) => d.action));
    for (const action of ['allow', 'warn', 'block'] as const) expect(actions).toContain(action);
    expect(engineWith(config).haltDecision()).toBeUndefined();
    expect(enforced.every((d) => d.shadow === undefined)).toBe(true);
    expect(shadowed.every((d) => d.shadow === true)).toBe(true);
    expect(shadowed.map(({ shadow: _, ...d }) => d)).toEqual(enforced);
  });

  it('records the stop and refuses as enforce mode does, marking the refusal shadow', () => {
    const engine = engineWith({ ...config, mode: 'shadow' });
    run(engine);
    expect(engine.haltDecision()).toBeDefined();
    expect(engine.refusal?.({ tool: 'fetch', args: { url: 'x' } })?.action).toBe('block');
    const before = engine.beforeCall({ tool: 'fetch', args: { url: 'x' } });
    expect(before).toMatchObject({ action: 'block', shadow: true });
    expect(engineWith(config).beforeCall({ tool: 'read' }).shadow).toBeUndefined();
  });
});
