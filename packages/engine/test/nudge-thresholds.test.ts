import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/resolve.js';
import { NudgeThresholds } from '../src/nudge-thresholds.js';
import { resolvePolicy } from '../src/policies.js';
import type { EngineOptions } from '../src/types.js';

/** Thresholds over `options` and an environment that records every name read from it. */
function thresholdsWith(options: EngineOptions, values: Record<string, string> = {}) {
  const { config } = loadConfig({ configFile: false, env: {}, ...options });
  const reads: string[] = [];
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_target, name) => {
      reads.push(String(name));
      return values[String(name)];
    },
  });
  const diagnostics: string[] = [];
  const thresholds = new NudgeThresholds(config, env, (m) => diagnostics.push(m));
  return { thresholds, reads, diagnostics, policy: (tool: string) => resolvePolicy(config, tool) };
}

describe('NudgeThresholds.forStreak', () => {
  it('gives the thresholds in force for a repeat of a tool that can be nudged', () => {
    const { thresholds, reads, policy } = thresholdsWith({}, { LOOPGUARD_NUDGE_THRESHOLDS: '2,4' });
    expect(thresholds.forStreak('grep', 2, policy('grep'))).toEqual([2, 4]);
    expect(reads).toEqual(['LOOPGUARD_NUDGE_THRESHOLDS']);
    // unknown tools are nudged too
    expect(thresholds.forStreak('deploy', 7, policy('deploy'))).toEqual([2, 4]);
  });

  it('reads nothing for a first call, a poller, a tool with nudge off or an excluded tool', () => {
    const { thresholds, reads, policy } = thresholdsWith({
      nudge: { exclude: ['mcp__*'] },
      tools: { deploy: { nudge: false } },
    });
    expect(thresholds.forStreak('grep', 1, policy('grep'))).toBeUndefined();
    expect(thresholds.forStreak('job_status', 5, policy('job_status'))).toBeUndefined();
    expect(thresholds.forStreak('deploy', 5, policy('deploy'))).toBeUndefined();
    expect(thresholds.forStreak('mcp__fs_read', 5, policy('mcp__fs_read'))).toBeUndefined();
    // never nudged whatever nudge.exclude says
    expect(thresholds.forStreak('todo_write', 5, policy('todo_write'))).toBeUndefined();
    expect(reads).toEqual([]);
  });

  it('falls back past an unset environment and reports a bad value once', () => {
    const unset = thresholdsWith({});
    expect(unset.thresholds.forStreak('grep', 3, unset.policy('grep'))).toEqual([3, 5, 8]);
    expect(unset.reads).toEqual(['LOOPGUARD_NUDGE_THRESHOLDS', 'CYBERINE_REPEAT_TOOL_THRESHOLDS']);

    const bad = thresholdsWith({}, { CYBERINE_REPEAT_TOOL_THRESHOLDS: '5,3' });
    expect(bad.thresholds.forStreak('grep', 3, bad.policy('grep'))).toEqual([3, 5, 8]);
    expect(bad.thresholds.forStreak('grep', 4, bad.policy('grep'))).toEqual([3, 5, 8]);
    expect(bad.diagnostics).toHaveLength(1);
    expect(bad.diagnostics[0]).toContain('CYBERINE_REPEAT_TOOL_THRESHOLDS="5,3"');
  });

  it('uses the thresholds of the config object without reading the environment', () => {
    const { thresholds, reads, policy } = thresholdsWith(
      { nudge: { thresholds: [4] } },
      { LOOPGUARD_NUDGE_THRESHOLDS: '2' },
    );
    expect(thresholds.forStreak('grep', 4, policy('grep'))).toEqual([4]);
    expect(reads).toEqual([]);
  });
});
