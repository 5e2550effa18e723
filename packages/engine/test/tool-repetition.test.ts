// The ten cases reference 002 lists by name, with the engine's names and defaults.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../src/config/file.js';
import { loadConfig } from '../src/config/resolve.js';
import { axes, call, engineWith, repeat } from './helpers.js';

const NAV = { url: 'https://example.com/missing' };

describe('tool_repetition (reference 002)', () => {
  it('test_default_tool_repetition_config_values', () => {
    const { config } = loadConfig({ configFile: false, env: {} });
    expect(config.guardrails.warnAfter.repetition).toBe(5);
    expect(config.guardrails.hardStopAfter.repetition).toBe(8);
    expect(config.guardrails.hardStop).toBe(false);
  });

  it('test_config_parses_tool_repetition_thresholds_from_nested_sections', () => {
    const { config, issues } = parseConfigText(
      'tool_loop_guardrails:\n  warn_after:\n    tool_repetition: 2\n  hard_stop_after:\n    tool_repetition: 3\n',
      'loopguard.config.yaml',
    );
    expect(issues).toEqual([]);
    expect(config.guardrails?.warnAfter?.repetition).toBe(2);
    expect(config.guardrails?.hardStopAfter?.repetition).toBe(3);
  });

  it('test_config_parses_tool_repetition_thresholds_from_flat_keys', () => {
    const { config, issues } = parseConfigText(
      'tool_loop_guardrails:\n  tool_repetition_warn_after: 4\n  tool_repetition_block_after: 6\n',
      'loopguard.config.yaml',
    );
    expect(issues).toEqual([]);
    expect(config.guardrails?.warnAfter?.repetition).toBe(4);
    expect(config.guardrails?.hardStopAfter?.repetition).toBe(6);
  });

  it('test_warns_on_repeated_identical_mutating_tool_call_without_hard_stop', () => {
    const engine = engineWith({ nudge: { thresholds: [] } });
    const actions = repeat(
      engine,
      10,
      'write_file',
      { path: 'a.txt', text: 'x' },
      { result: 'ok' },
    );
    expect(actions).toEqual([
      'allow',
      'allow',
      'allow',
      'allow',
      'warn',
      'warn',
      'warn',
      'warn',
      'warn',
      'warn',
    ]);
    expect(engine.haltDecision()).toBeUndefined();
  });

  it('test_hard_stop_blocks_repeated_identical_mutating_tool_call_before_next', () => {
    const engine = engineWith({
      nudge: { thresholds: [] },
      guardrails: {
        hardStop: true,
        warnAfter: { repetition: 2 },
        hardStopAfter: { repetition: 3 },
      },
    });
    const first = call(engine, 'terminal', { command: 'ls' });
    const second = call(engine, 'terminal', { command: 'ls' });
    const third = call(engine, 'terminal', { command: 'ls' });
    expect(first.after?.action).toBe('allow');
    expect(second.after?.action).toBe('warn');
    expect(third.after?.action).toBe('block');
    expect(engine.haltDecision()).toMatchObject({ axis: 'repetition', action: 'block', count: 3 });
    const fourth = engine.beforeCall({ tool: 'terminal', args: { command: 'ls' } });
    expect(fourth.action).toBe('block');
    expect(fourth.findings[0]?.axis).toBe('repetition');
  });

  it('test_different_args_create_different_signatures_so_repetition_independent', () => {
    const engine = engineWith({ guardrails: { hardStop: true } });
    repeat(engine, 7, 'terminal', { command: 'ls' });
    const other = call(engine, 'terminal', { command: 'pwd' });
    expect(other.after?.action).toBe('allow');
    expect(other.after?.count).toBe(1);
    expect(engine.beforeCall({ tool: 'terminal', args: { command: 'pwd' } }).action).toBe('allow');
  });

  it('test_single_success_between_repeated_calls_resets_repetition_counter', () => {
    // The reference's name; its table states the behaviour: the count persists per signature
    // across other tool calls in between.
    const engine = engineWith({ nudge: { thresholds: [] } });
    const decisions = [];
    for (let i = 0; i < 5; i++) {
      decisions.push(call(engine, 'browser_navigate', NAV).after);
      call(engine, 'write_file', { path: `f${i}` });
    }
    expect(decisions.map((d) => d?.count)).toEqual([1, 2, 3, 4, 5]);
    expect(decisions[4]?.action).toBe('warn');
    expect(axes(decisions[4])).toContain('repetition');
  });

  it('test_tool_repetition_warns_for_mutating_tools_including_browser_navigate', () => {
    const engine = engineWith({ nudge: { thresholds: [] } });
    const actions = repeat(engine, 5, 'browser_navigate', NAV, { result: '404 Not Found' });
    expect(actions.slice(0, 4)).toEqual(['allow', 'allow', 'allow', 'allow']);
    expect(actions[4]).toBe('warn');
  });

  it('test_reset_for_turn_clears_tool_repetition_state', () => {
    const engine = engineWith({ guardrails: { hardStop: true } });
    repeat(engine, 8, 'browser_navigate', NAV);
    expect(engine.beforeCall({ tool: 'browser_navigate', args: NAV }).action).toBe('block');
    engine.resetScope();
    expect(engine.haltDecision()).toBeUndefined();
    const again = call(engine, 'browser_navigate', NAV);
    expect(again.before.action).toBe('allow');
    expect(again.after?.count).toBe(1);
  });

  it('test_failed_call_does_not_count_toward_tool_repetition', () => {
    const engine = engineWith({ guardrails: { warnings: true } });
    const failures = [];
    for (let i = 0; i < 6; i++)
      failures.push(call(engine, 'terminal', { command: 'make' }, { ok: false }).after);
    expect(failures.flatMap(axes)).not.toContain('repetition');
    const success = call(engine, 'terminal', { command: 'make' }, { ok: true });
    expect(axes(success.after)).not.toContain('repetition');
  });
});

describe('tool repetition, the rest of the defaults', () => {
  it('with hard stop and default thresholds, the 8th call blocks and records the halt', () => {
    const engine = engineWith({ guardrails: { hardStop: true } });
    const afters = [];
    for (let i = 0; i < 8; i++) afters.push(call(engine, 'terminal', { command: 'ls' }).after!);
    expect(afters.map((d) => d.action)).toEqual([
      'allow',
      'allow',
      'nudge', // the streak's 3rd call
      'allow',
      'warn',
      'warn',
      'warn',
      'block',
    ]);
    expect(engine.haltDecision()?.axis).toBe('repetition');
  });

  it('warnings: false silences the warnings of a running engine, not its hard stop', () => {
    const quiet = engineWith({ guardrails: { warnings: false } });
    expect(
      repeat(quiet, 7, 'terminal', { command: 'ls' }, { result: (i: number) => i }),
    ).not.toContain('warn');
    const stopping = engineWith({ guardrails: { warnings: false, hardStop: true } });
    expect(
      repeat(stopping, 9, 'terminal', { command: 'ls' }, { result: (i: number) => i }).at(-1),
    ).toBe('blocked');
  });
});
