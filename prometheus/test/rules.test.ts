import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRules, parseYaml, RULES_FILE, root, run, stringifyYaml, which } from './support.js';

const promtool = which('promtool');
const TESTS_FILE = 'prometheus/tests/loopguard.test.yml';

describe.skipIf(!promtool)('prometheus rules (promtool)', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'loopguard-promtool-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('passes promtool check rules', async () => {
    const result = await run(promtool as string, ['check', 'rules', RULES_FILE]);
    expect(result.stderr + result.stdout).toContain('SUCCESS: 5 rules found');
    expect(result.code).toBe(0);
  });

  it('passes promtool check config for the compose prometheus.yml', async () => {
    const result = await run(promtool as string, ['check', 'config', 'prometheus/prometheus.yml']);
    expect(result.code, result.stderr + result.stdout).toBe(0);
  });

  it('passes the promtool unit tests', async () => {
    const result = await run(promtool as string, ['test', 'rules', TESTS_FILE]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain('SUCCESS');
  });

  it('has a severity, a `for`, a summary and a runbook on every rule', async () => {
    const rules = await loadRules();
    expect(rules.map((r) => r.alert).sort()).toEqual([
      'LoopguardBlockRateHigh',
      'LoopguardIngestRejectingSpans',
      'LoopguardMetricsMissing',
      'LoopguardNudgeRateSpike',
      'LoopguardRunHalted',
    ]);
    for (const rule of rules) {
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.runbook, rule.alert).toMatch(/^docs\/alerting\.md#/);
    }
  });

  // The unit tests must be able to fail: for each rule, a copy that never fires must break a
  // firing test, and a copy without `for` must break a not-yet-firing (pending) test.
  const mutations = [
    {
      name: 'never fires',
      apply: (rule: Record<string, unknown>) => ({ ...rule, expr: 'vector(1) < 0' }),
    },
    { name: 'has no `for`', apply: (rule: Record<string, unknown>) => ({ ...rule, for: '0s' }) },
  ];
  for (const mutation of mutations) {
    it(`fails the unit tests when any rule ${mutation.name}`, async () => {
      const source = parseYaml(await readFile(join(root, RULES_FILE), 'utf8')) as {
        groups: { name: string; rules: Record<string, unknown>[] }[];
      };
      const tests = parseYaml(await readFile(join(root, TESTS_FILE), 'utf8')) as Record<
        string,
        unknown
      >;
      const names = source.groups.flatMap((g) => g.rules.map((r) => String(r.alert)));
      for (const name of names) {
        const mutated = {
          groups: source.groups.map((g) => ({
            ...g,
            rules: g.rules.map((r) => (r.alert === name ? mutation.apply(r) : r)),
          })),
        };
        const dir = await mkdtemp(join(tmp, 'mut-'));
        await writeFile(join(dir, 'rules.yml'), stringifyYaml(mutated));
        await writeFile(
          join(dir, 'test.yml'),
          stringifyYaml({ ...tests, rule_files: ['rules.yml'] }),
        );
        const result = await run(promtool as string, ['test', 'rules', join(dir, 'test.yml')]);
        expect(result.code, `${name} ${mutation.name} but the unit tests still pass`).not.toBe(0);
        expect(result.stdout + result.stderr).toContain(`alertname: ${name}`);
      }
    });
  }
});

it.runIf(!promtool)(
  'skips the promtool tests: promtool is not installed (apt-get install prometheus)',
  () => {
    expect(promtool).toBeUndefined();
  },
);
