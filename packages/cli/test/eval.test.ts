import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvalReport } from '../src/eval/index.js';
import { evaluate, folder, jsonl, labelledSet, REPLAY_CALLS } from './eval-fixtures.js';

// The nudge thresholds come from the environment at call time: the figures below are for the
// defaults (3, 5, 8).
const saved = process.env.LOOPGUARD_NUDGE_THRESHOLDS;
beforeEach(() => {
  delete process.env.LOOPGUARD_NUDGE_THRESHOLDS;
});
afterEach(() => {
  if (saved !== undefined) process.env.LOOPGUARD_NUDGE_THRESHOLDS = saved;
});

const share = (count: number, of: number) => ({ count, of, share: count / of });

async function report(extra: { configs?: string[]; examples?: boolean } = {}) {
  const { dir, labels } = labelledSet();
  const r = await evaluate({ inputs: [dir], labels, json: true, ...extra });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as EvalReport;
}

describe('loopguard eval on a small labelled set (figures worked out by hand)', () => {
  // s1: bash x8 identical (stuck, onset 2). Engine: nudge at 3 (streak), warn at 5
  //   (repetition), with hard stop a block at 8. Gemini CLI: 5th identical call. OpenHands: bash
  //   is a shell command, its observations compare by exit status: 4 identical pairs at call 4.
  // s2: 3 different edits (stuck, onset 1): nobody finds anything.
  // h0: labelled with 0 calls and in no file: a healthy run with nothing found.
  // h1: edit x fails twice (exact_failure warns from the 3rd), then edit y succeeds: nothing.
  // h2: edit z fails 5 times (resolved): exact_failure warns at 3, blocks at 5 with hard stop;
  //   Gemini CLI at 5; OpenHands at 3 (the same action with an error 3 times).
  // h3: 3 different greps (resolved): nothing.
  // lim-1: lookup x 3 times, same result (limit_norep): no_progress warns at 3; no peer fires.
  it('gives every figure of each configuration and peer rule, overall and per source', async () => {
    const r = await report();
    expect(r.inputs).toEqual({
      files: 3,
      runs: 6,
      evaluated: 7,
      unlabelled: 0,
      notFound: 0,
      bad: 0,
    });
    expect(r.detectors.map((d) => [d.name, d.kind, d.hardStop])).toEqual([
      ['default', 'config', false],
      ['hard-stop', 'config', true],
      ['gemini-cli', 'peer', true],
      ['openhands', 'peer', true],
    ]);
    expect(r.groups.map((g) => [g.group, g.runs])).toEqual([
      ['all', { total: 7, stuck: 2, healthy: 4, resolved: 2, limitNorep: 1 }],
      ['agent-a', { total: 2, stuck: 2, healthy: 0, resolved: 0, limitNorep: 0 }],
      ['agent-b', { total: 4, stuck: 0, healthy: 4, resolved: 2, limitNorep: 0 }],
      ['agent-c', { total: 1, stuck: 0, healthy: 0, resolved: 0, limitNorep: 1 }],
    ]);
    const all = r.groups[0]!.detectors;
    expect(all.default).toEqual({
      stuck: {
        flagged: share(1, 2),
        stopped: share(0, 2),
        firstFindingVsOnset: 1,
        firstStopVsOnset: null,
      },
      healthy: {
        warned: share(1, 4),
        stopped: share(0, 4),
        warnedBy: { axes: { exact_failure: 1 }, tools: { edit: 1 } },
        stoppedBy: { axes: {}, tools: {} },
      },
      resolved: { warned: share(1, 2), stopped: share(0, 2) },
      limitNorep: { flagged: share(1, 1), stopped: share(0, 1) },
    });
    expect(all['hard-stop']).toEqual({
      stuck: {
        flagged: share(1, 2),
        stopped: share(1, 2),
        firstFindingVsOnset: 1,
        firstStopVsOnset: 6,
      },
      healthy: {
        warned: share(1, 4),
        stopped: share(1, 4),
        warnedBy: { axes: { exact_failure: 1 }, tools: { edit: 1 } },
        stoppedBy: { axes: { exact_failure: 1 }, tools: { edit: 1 } },
      },
      resolved: { warned: share(1, 2), stopped: share(1, 2) },
      limitNorep: { flagged: share(1, 1), stopped: share(0, 1) },
    });
    const peer = (offset: number, rule: string) => ({
      stuck: {
        flagged: share(1, 2),
        stopped: share(1, 2),
        firstFindingVsOnset: offset,
        firstStopVsOnset: offset,
      },
      healthy: {
        warned: share(1, 4),
        stopped: share(1, 4),
        warnedBy: { axes: { [rule]: 1 }, tools: { edit: 1 } },
        stoppedBy: { axes: { [rule]: 1 }, tools: { edit: 1 } },
      },
      resolved: { warned: share(1, 2), stopped: share(1, 2) },
      limitNorep: { flagged: share(0, 1), stopped: share(0, 1) },
    });
    expect(all['gemini-cli']).toEqual(peer(3, 'identical_calls'));
    expect(all.openhands).toEqual(peer(2, 'repeating_action_error'));
    // a source without stuck runs has no stuck figures
    expect(r.groups[2]!.detectors['hard-stop']!.stuck).toEqual({
      flagged: { count: 0, of: 0, share: null },
      stopped: { count: 0, of: 0, share: null },
      firstFindingVsOnset: null,
      firstStopVsOnset: null,
    });
    expect(r.groups[2]!.detectors['hard-stop']!.healthy).toEqual(all['hard-stop']!.healthy);
    expect(r.examples).toBeUndefined();
  });

  it('prints the figures as tables, configurations side by side', async () => {
    const { dir, labels } = labelledSet();
    const { code, stdout } = await evaluate({ inputs: [dir], labels });
    expect(code).toBe(0);
    const row = (title: string) =>
      stdout
        .split('\n')
        .find((l) => l.startsWith(`| ${title} `))
        ?.split('|')
        .slice(2, -1)
        .map((c) => c.trim());
    expect(stdout).toContain(
      '## all: 7 runs (2 stuck, 4 healthy of which 2 resolved, 1 limit_norep)',
    );
    expect(stdout).toMatch(/^\| +\| +default \| +hard-stop \| +gemini-cli \| +openhands \|$/m);
    // the first table is that of all runs; columns: default, hard-stop, gemini-cli, openhands
    const expected: Record<string, string> = {
      'stuck runs with a finding': '0.500 (1/2) | 0.500 (1/2) | 0.500 (1/2) | 0.500 (1/2)',
      'stuck runs stopped (block/halt)': '0.000 (0/2) | 0.500 (1/2) | 0.500 (1/2) | 0.500 (1/2)',
      'first finding - onset, median (calls)': '+1 | +1 | +3 | +2',
      'first stop - onset, median (calls)': '- | +6 | +3 | +2',
      'healthy runs warned or worse': '0.250 (1/4) | 0.250 (1/4) | 0.250 (1/4) | 0.250 (1/4)',
      'healthy runs stopped (block/halt)': '0.000 (0/4) | 0.250 (1/4) | 0.250 (1/4) | 0.250 (1/4)',
      'resolved runs warned or worse': '0.500 (1/2) | 0.500 (1/2) | 0.500 (1/2) | 0.500 (1/2)',
      'resolved runs stopped (block/halt)': '0.000 (0/2) | 0.500 (1/2) | 0.500 (1/2) | 0.500 (1/2)',
      'limit_norep runs with a finding': '1.000 (1/1) | 1.000 (1/1) | 0.000 (0/1) | 0.000 (0/1)',
      'limit_norep runs stopped (block/halt)':
        '0.000 (0/1) | 0.000 (0/1) | 0.000 (0/1) | 0.000 (0/1)',
    };
    for (const [title, cells] of Object.entries(expected)) {
      expect(row(title), title).toEqual(cells.split(' | '));
    }
    expect(stdout).toContain('- hard-stop: exact_failure 1; tools: edit 1');
    expect(stdout).toContain('- openhands: repeating_action_error 1; tools: edit 1');
    for (const source of ['agent-a', 'agent-b', 'agent-c'])
      expect(stdout).toContain(`## ${source}:`);
  });

  it('--examples names the healthy runs broken and the stuck runs missed, with the call that decided', async () => {
    const r = await report({ examples: true });
    const ex = r.examples!;
    // without hard stop a warn is the strongest answer: the healthy runs warned are listed
    expect(ex.default!.decisive).toBe('warn');
    expect(ex.default!.broken.map((e) => [e.scope, e.moment?.call, e.moment?.axis])).toEqual([
      ['h2', 3, 'exact_failure'],
    ]);
    expect(ex['hard-stop']).toEqual({
      decisive: 'stop',
      broken: [
        {
          scope: 'h2',
          source: 'agent-b',
          calls: 5,
          moment: {
            call: 5,
            action: 'block',
            axis: 'exact_failure',
            tool: 'edit',
            where: expect.stringMatching(/agent-b\.json: span 0000000000000008$/),
            count: 5,
          },
          call: { tool: 'edit', args: '{"path":"z"}' },
        },
      ],
      missed: [
        {
          scope: 's2',
          source: 'agent-a',
          calls: 3,
          onset: 1,
          call: { tool: 'edit', args: '{"n":1}' },
        },
      ],
    });
    expect(ex.openhands!.broken[0]!.moment).toMatchObject({ call: 3, action: 'halt' });
    expect(ex['gemini-cli']!.missed.map((e) => e.scope)).toEqual(['s2']);
    // a stuck run the default configuration only nudges counts as missed there (no warn)
    expect(ex.default!.missed.map((e) => e.scope)).toEqual(['s2']);

    const { dir, labels } = labelledSet();
    const text = (await evaluate({ inputs: [dir], labels, examples: true })).stdout;
    expect(text).toContain('## hard-stop: healthy runs stopped (1)');
    expect(text).toMatch(
      /^- h2 \(5 calls\): block exact_failure \(5\) at call 5 \(.*agent-b\.json: span \w+\); call: edit \{"path":"z"\}$/m,
    );
    expect(text).toContain('## default: stuck runs not warned (1)');
    expect(text).toMatch(/^- s2 \(3 calls, onset 1\): no finding; onset call: edit \{"n":1\}$/m);
  });

  it('evaluates the configurations given with --config, named after their files', async () => {
    const { dir, labels } = labelledSet();
    const strict = join(folder({}), 'strict.json');
    writeFileSync(
      strict,
      JSON.stringify({ guardrails: { hardStop: true, hardStopAfter: { exactFailure: 3 } } }),
    );
    const r = await evaluate({ inputs: [dir], labels, configs: [strict], json: true });
    const figures = (JSON.parse(r.stdout) as EvalReport).groups[0]!.detectors;
    expect(Object.keys(figures)).toEqual(['strict', 'gemini-cli', 'openhands']);
    expect(figures.strict!.healthy.stopped).toEqual(share(1, 4));
    const bad = join(folder({}), 'bad.json');
    writeFileSync(bad, JSON.stringify({ guardrails: { hardStop: 'yes' } }));
    await expect(evaluate({ inputs: [dir], labels, configs: [bad] })).rejects.toThrow(
      /--config .*bad\.json is not valid, nothing was evaluated/,
    );
  });

  it('names each bad file, line and label with its line, and evaluates the rest', async () => {
    const calls = jsonl(REPLAY_CALLS).split('\n');
    // line 3: not JSON; line 6: a typo in a key; both left out, the other lines read
    calls.splice(2, 0, '{"scope": "s1", "tool": ');
    calls.splice(5, 0, '{"scope": "s1", "tol": "bash"}');
    const dir = folder({
      'agent-a.jsonl': calls.join('\n'),
      'notes.json': '{\n  "what": "not a trajectory"\n}\n',
      'labels.json': [
        '{"labels": {',
        '  "s1": {"label": "stuck", "onset": 2},',
        '  "s2": {"label": "stcuk", "onset": 1},',
        '  "s3": {"label": "healthy", "onset": 0}',
        '}}',
      ].join('\n'),
    });
    const missing = join(dir, 'no-such.jsonl');
    const r = await evaluate({
      inputs: [dir, missing],
      labels: join(dir, 'labels.json'),
      json: true,
    });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /labels\.json:3: label of "s2": "label" must be one of stuck, healthy, limit_norep \(got "stcuk"\)$/,
      ),
      expect.stringMatching(
        /labels\.json:4: label of "s3": "onset" must be a call index from 1, or null \(got 0\)$/,
      ),
      expect.stringMatching(/no-such\.jsonl: cannot read: ENOENT/),
      expect.stringMatching(/agent-a\.jsonl:3: not valid JSON/),
      expect.stringMatching(/agent-a\.jsonl:6: unknown key "tol"/),
      expect.stringMatching(/notes\.json: not a replay JSONL, OTLP JSON or chat transcript file$/),
      'loopguard eval: 1 run(s) without a label left out: "s2"',
      'loopguard eval: 6 bad file(s), line(s) or label(s) left out; the rest was evaluated',
    ]);
    const report = JSON.parse(r.stdout) as EvalReport;
    expect(report.inputs).toEqual({
      files: 2,
      runs: 2,
      evaluated: 1,
      unlabelled: 1,
      notFound: 0,
      bad: 6,
    });
    // s1 is read whole but for its two bad lines: still 8 calls, stopped at the 8th with hard stop
    expect(report.groups[0]!.detectors['hard-stop']!.stuck).toMatchObject({
      stopped: share(1, 1),
      firstStopVsOnset: 6,
    });
  });

  it('a labels file it cannot use stops it, naming the file and line', async () => {
    const dir = folder({ 'labels.json': '{"labels": {\n  "s1": {"label": "stuck"},\n}}' });
    await expect(evaluate({ inputs: [dir], labels: join(dir, 'labels.json') })).rejects.toThrow(
      /labels\.json:3: --labels is not valid JSON/,
    );
  });

  it('notes labelled runs found in no input, and a scope met in a second file', async () => {
    const dir = folder({
      'a.jsonl': jsonl(REPLAY_CALLS.filter((c) => c.scope === 's1')),
      'b.jsonl': jsonl(REPLAY_CALLS.slice(0, 2)),
      'labels.json': JSON.stringify({
        labels: { s1: { label: 'stuck', onset: 2 }, gone: { label: 'healthy', n_calls: 4 } },
      }),
    });
    const r = await evaluate({ inputs: [dir], labels: join(dir, 'labels.json'), json: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /b\.jsonl:1: run "s1" was read from .*a\.jsonl already; its lines here are left out\n/,
    );
    expect(r.stderr).toContain(
      'loopguard eval: 1 labelled run(s) found in no input left out: "gone"\n',
    );
    const report = JSON.parse(r.stdout) as EvalReport;
    expect(report.inputs).toMatchObject({ runs: 1, evaluated: 1, notFound: 1, bad: 1 });
    expect(report.groups[0]!.detectors.default!.stuck.firstFindingVsOnset).toBe(1);
  });

  it('shows a progress line on a terminal’s stderr, and clears it', async () => {
    const { dir, labels } = labelledSet();
    const tty = await evaluate({ inputs: [dir], labels }, true);
    expect(tty.code).toBe(0);
    expect(tty.stderr.startsWith('\r\x1b[Keval: reading file 1/3')).toBe(true);
    expect(tty.stderr.endsWith('\r\x1b[K')).toBe(true);
    const piped = await evaluate({ inputs: [dir], labels }, false);
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toBe(tty.stdout);
  });
});
