import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvalReport, SweepPoint } from '../src/eval/index.js';
import { SHIPPED_CONFIGS } from '../src/eval/index.js';
import { type Call, evaluate, folder, jsonl, labelledSet } from './eval-fixtures.js';

const saved = process.env.LOOPGUARD_NUDGE_THRESHOLDS;
beforeEach(() => {
  delete process.env.LOOPGUARD_NUDGE_THRESHOLDS;
});
afterEach(() => {
  if (saved !== undefined) process.env.LOOPGUARD_NUDGE_THRESHOLDS = saved;
});

const share = (count: number, of: number) => ({ count, of, share: count / of });
const SHIPPED_HARD_STOP = {
  repetition: 8,
  exactFailure: 5,
  sameToolFailure: 10,
  noProgress: 4,
  cycle: 5,
  poll: 20,
  sameError: 4,
};

async function sweepReport(inputs: string[], labels: string, configs: string[] = []) {
  const r = await evaluate({ inputs, labels, configs, json: true, sweep: true });
  expect(r.code).toBe(0);
  return { report: JSON.parse(r.stdout) as EvalReport, stderr: r.stderr };
}

describe('loopguard eval --sweep on the small labelled set (worked out by hand)', () => {
  // Of the runs that count (limit_norep aside): s1 (stuck) repeats one successful bash call 8
  // times, so repetition reaches n at call n from its warn threshold 5; h2 (healthy, resolved)
  // fails one edit 5 times, so exact_failure and same_tool_failure reach n at call n from 3
  // (same_error counts failures with other arguments only). s2, h0, h1, h3 reach nothing. The
  // shipped hard stop stops s1 (repetition 8) and h2 (exact_failure 5). No setting stops s2, so
  // the best is s1 stopped and h2 not: repetition at most 8, both failure axes above 5. Nearest
  // the shipped thresholds: exactFailure 6, the next tried above 5 (sameToolFailure 10 is above).
  it('finds the one setting no other beats, and the configured one as the eval figures it', async () => {
    const { dir, labels } = labelledSet();
    const { report, stderr } = await sweepReport([dir], labels);
    expect(stderr).toBe('');
    expect(report.sweeps).toHaveLength(1);
    const s = report.sweeps![0]!;
    expect(s.name).toBe('hard-stop');
    // 6 repetition x 8 exact_failure x 7 same_tool_failure x 5 no_progress x 5 cycle x 4 poll
    // x 5 same_error thresholds tried
    expect(s.settings).toBe(6 * 8 * 7 * 5 * 5 * 4 * 5);
    expect(s.configured).toEqual({
      hardStopAfter: SHIPPED_HARD_STOP,
      stuck: share(1, 2),
      healthy: share(1, 4),
      resolved: share(1, 2),
    });
    const hard = report.groups[0]!.detectors['hard-stop']!;
    expect([hard.stuck.stopped, hard.healthy.stopped, hard.resolved.stopped]).toEqual([
      s.configured.stuck,
      s.configured.healthy,
      s.configured.resolved,
    ]);
    expect(s.frontier).toEqual([
      {
        hardStopAfter: { ...SHIPPED_HARD_STOP, exactFailure: 6 },
        stuck: share(1, 2),
        healthy: share(0, 4),
        resolved: share(0, 2),
      },
    ]);
  });

  it('prints the frontier and the configured row as a table', async () => {
    const { dir, labels } = labelledSet();
    const r = await evaluate({ inputs: [dir], labels, sweep: true });
    expect(r.code).toBe(0);
    const table = r.stdout.slice(r.stdout.indexOf('## hard-stop: hard-stop thresholds swept'));
    expect(table).toContain('(168000 settings of guardrails.hardStopAfter, hard stop on)');
    const rows = table.split('\n').filter((l) => l.startsWith('| 0.'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(
      /^\| 0\.000 \(0\/4\) +\| +0\.000 \(0\/2\) \| +0\.500 \(1\/2\) \| +exactFailure 6 \|$/,
    );
    expect(rows[1]).toContain('configured: repetition 8, exactFailure 5, sameToolFailure 10');
  });

  it('turns hard stop on for the first configuration when none has it, and says so', async () => {
    const { dir, labels } = labelledSet();
    const { report, stderr } = await sweepReport([dir], labels, [SHIPPED_CONFIGS[0]!]);
    expect(stderr).toBe(
      'loopguard eval: --sweep: no configuration has hard stop on; default is swept with hard stop on\n',
    );
    expect(report.sweeps!.map((s) => [s.name, s.configured.healthy])).toEqual([
      ['default', share(1, 4)],
    ]);
  });
});

/** A seeded pseudo-random run: few tools, few arguments, failures and results that repeat. */
function randomCalls(scope: string, seed: number, n: number): Call[] {
  let x = seed;
  const next = (k: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x % k;
  };
  const tools = ['bash', 'edit', 'grep'];
  return Array.from({ length: n }, () => {
    const ok = next(3) > 0;
    return {
      scope,
      tool: tools[next(tools.length)]!,
      args: { a: next(3) },
      ok,
      result: ok ? `out ${next(2)}` : `Error: bad ${next(2)}`,
    };
  });
}

describe('loopguard eval --sweep agrees with replaying each setting', () => {
  it('stops, for every setting it reports, the runs the eval of that setting stops', async () => {
    const calls: Call[] = [];
    const labels: Record<string, { label: string; resolved?: boolean }> = {};
    for (let i = 0; i < 40; i++) {
      const scope = `r${i}`;
      calls.push(...randomCalls(scope, 7 + i * 131, 12 + (i % 5) * 6));
      labels[scope] =
        i % 3 === 0 ? { label: 'stuck' } : { label: 'healthy', resolved: i % 2 === 0 };
    }
    // grep failing on 12 different patterns: only grep's own threshold decides its runs
    for (let i = 0; i < 3; i++) {
      const scope = `g${i}`;
      for (let n = 0; n < 12; n++) {
        calls.push({
          scope,
          tool: 'grep',
          args: { p: n },
          ok: false,
          result: `bad pattern ${'abcdefghijkl'[n]}`,
        });
      }
      labels[scope] = { label: 'healthy', resolved: i === 0 };
    }
    // a tool's own stop thresholds hold whatever the global ones are (above the grid, so the
    // tool is never stopped on that axis, or below it, so it is stopped early), warnings off
    // and a tool's own warn thresholds change no stop
    const config = {
      guardrails: { hardStop: true, warnings: false },
      tools: {
        grep: { hardStopAfter: { sameToolFailure: 40 } },
        bash: { hardStopAfter: { exactFailure: 2 }, warnAfter: { sameToolFailure: 9 } },
      },
    };
    const dir = folder({
      'runs.jsonl': jsonl(calls),
      'labels.json': JSON.stringify({ labels }),
      'swept.json': JSON.stringify(config),
    });
    const labelsFile = join(dir, 'labels.json');
    const { report } = await sweepReport([join(dir, 'runs.jsonl')], labelsFile, [
      join(dir, 'swept.json'),
    ]);
    const s = report.sweeps![0]!;
    expect(s.frontier.length).toBeGreaterThan(1);
    const points: SweepPoint[] = [s.configured, ...s.frontier];
    const files = points.map((p, i) => {
      const file = join(dir, `point-${i}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          ...config,
          guardrails: { hardStop: true, hardStopAfter: p.hardStopAfter },
        }),
      );
      return file;
    });
    const r = await evaluate({
      inputs: [join(dir, 'runs.jsonl')],
      labels: labelsFile,
      configs: files,
      json: true,
    });
    expect(r.code).toBe(0);
    const figures = (JSON.parse(r.stdout) as EvalReport).groups[0]!.detectors;
    points.forEach((p, i) => {
      const f = figures[`point-${i}`]!;
      expect([f.stuck.stopped, f.healthy.stopped, f.resolved.stopped]).toEqual([
        p.stuck,
        p.healthy,
        p.resolved,
      ]);
    });
  });
});
