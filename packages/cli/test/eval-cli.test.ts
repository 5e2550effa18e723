import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EvalReport } from '../src/eval/index.js';
import { labelledSet } from './eval-fixtures.js';

// The built binary, as a user runs it (needs `pnpm -C packages/cli run build`).
const bin = fileURLToPath(new URL('../bin/loopguard.js', import.meta.url));

function loopguard(...args: string[]) {
  const env = { ...process.env };
  delete env.LOOPGUARD_NUDGE_THRESHOLDS;
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env });
}

describe('loopguard eval (the binary)', () => {
  it('evaluates a folder with the shipped configurations and prints the tables', () => {
    const { dir, labels } = labelledSet();
    const r = loopguard('eval', dir, '--labels', labels);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^loopguard eval: 7 labelled runs evaluated \(6 runs read from 3 file\(s\)/,
    );
    expect(r.stdout).toMatch(
      /configurations: default \(.*configs\/default\.json, hard stop off\); hard-stop \(.*configs\/hard-stop\.json, hard stop on\)/,
    );
    expect(r.stdout).toMatch(
      /^\| healthy runs stopped \(block\/halt\) +\| +0\.000 \(0\/4\) \| +0\.250 \(1\/4\) \|/m,
    );
  });

  it('--json prints the report, --examples the runs behind it; usage errors exit 1', () => {
    const { dir, labels } = labelledSet();
    const r = loopguard('eval', dir, '--labels', labels, '--json', '--examples');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as EvalReport;
    expect(report.examples!['hard-stop']!.broken.map((e) => e.scope)).toEqual(['h2']);
    expect(report.groups[0]!.detectors['hard-stop']!.stuck.stopped.count).toBe(1);

    const noLabels = loopguard('eval', dir);
    expect(noLabels.status).toBe(1);
    expect(noLabels.stderr).toContain('see loopguard eval --help');
    const badFormat = loopguard('eval', dir, '--labels', labels, '--format', 'csv');
    expect(badFormat.status).toBe(1);
    expect(badFormat.stderr).toContain('--format is one of replay, otlp, chat');
    const missingLabels = loopguard('eval', dir, '--labels', `${dir}/none.json`);
    expect(missingLabels.status).toBe(1);
    expect(missingLabels.stderr).toMatch(/^loopguard: cannot read --labels .*none\.json: ENOENT/);
  });
});
