// bench/trajectories: `loopguard eval` on the labelled real agent runs of ../shared/trajectories
// (beside the repository), with the shipped configurations (packages/cli/configs: default and
// hard-stop) and the two peer rules. Not a timing: it prints the figures docs/eval.md publishes.
// With the table: `--sweep` (the hard-stop thresholds no other setting beats on the set), and the
// healthy runs the shipped hard stop breaks split by the set's own repetition evidence (E1-E4 of
// its README: the evidence that labels a run stuck when the harness ended it).
// Run: node bench/trajectories/run.mjs [--examples | --json]   (after pnpm run build)
// LOOPGUARD_TRAJECTORIES=<folder> reads another copy of the set.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
// paths relative to the repository (where the eval runs), as the report names them
const set = relative(
  repo,
  process.env.LOOPGUARD_TRAJECTORIES ?? join(repo, '..', 'shared', 'trajectories'),
);
const bin = join(repo, 'packages', 'cli', 'bin', 'loopguard.js');
const configs = join('packages', 'cli', 'configs');

if (!existsSync(join(repo, set, 'labels.json')) || !existsSync(join(repo, set, 'data'))) {
  console.log(
    `bench/trajectories: skipped, no labelled trajectories at ${resolve(repo, set)} (expected labels.json and ` +
      'data/ there: the shared/ copy beside the repository, or set LOOPGUARD_TRAJECTORIES)',
  );
} else {
  // the figures are for the configurations as shipped: no LOOPGUARD_* setting of this shell
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('LOOPGUARD_')),
  );
  const args = [
    bin,
    'eval',
    join(set, 'data'),
    '--labels',
    join(set, 'labels.json'),
    '--config',
    join(configs, 'default.json'),
    '--config',
    join(configs, 'hard-stop.json'),
    '--sweep',
    ...process.argv.slice(2),
  ];
  const { status } = spawnSync(process.execPath, args, { cwd: repo, stdio: 'inherit', env });
  process.exitCode = status ?? 1;
  if (status === 0 && !process.argv.includes('--json')) evidenceSplit(env);
}

/** The set's repetition evidence of one run (its README's E1-E4), as the names that hold. */
function evidence(calls) {
  const call = (c) => `${c.tool}\u0000${JSON.stringify(c.args)}`;
  const held = [];
  const pairs = new Map();
  for (const c of calls) {
    const k = `${call(c)}\u0000${c.result}`;
    pairs.set(k, (pairs.get(k) ?? 0) + 1);
  }
  if ([...pairs.values()].some((n) => n >= 3)) held.push('E1');
  let run = 1;
  let inRow = false;
  for (let i = 1; i < calls.length; i++) {
    run = call(calls[i]) === call(calls[i - 1]) ? run + 1 : 1;
    if (run >= 4) inRow = true;
  }
  if (inRow) held.push('E2');
  if (calls.length >= 10) {
    const seen = new Set();
    const from = Math.max(0, calls.length - 20);
    let repeats = 0;
    for (const [i, c] of calls.entries()) {
      if (i >= from && seen.has(call(c))) repeats++;
      seen.add(call(c));
    }
    if (repeats * 2 >= calls.length - from) held.push('E3');
  }
  const errors = new Map();
  for (const c of calls) {
    if (c.ok) continue;
    const text = String(c.result).replace(/[0-9]/g, '').slice(0, 200);
    errors.set(text, (errors.get(text) ?? 0) + 1);
  }
  if ([...errors.values()].some((n) => n >= 5)) held.push('E4');
  return held;
}

function evidenceSplit(env) {
  const runs = new Map();
  const data = join(repo, set, 'data');
  for (const file of readdirSync(data)) {
    for (const line of readFileSync(join(data, file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const c = JSON.parse(line);
      if (!runs.has(c.scope)) runs.set(c.scope, []);
      runs.get(c.scope).push(c);
    }
  }
  const { labels } = JSON.parse(readFileSync(join(repo, set, 'labels.json'), 'utf8'));
  const hard = spawnSync(
    process.execPath,
    [
      bin,
      'eval',
      join(set, 'data'),
      '--labels',
      join(set, 'labels.json'),
      '--config',
      join(configs, 'hard-stop.json'),
      '--json',
      '--examples',
    ],
    { cwd: repo, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const broken = new Set(JSON.parse(hard.stdout).examples['hard-stop'].broken.map((e) => e.scope));
  const rows = { with: [0, 0], without: [0, 0] };
  for (const [scope, label] of Object.entries(labels)) {
    if (label.label !== 'healthy') continue;
    const row = evidence(runs.get(scope) ?? []).length > 0 ? rows.with : rows.without;
    row[0]++;
    if (broken.has(scope)) row[1]++;
  }
  const cell = ([of, count]) => `${(count / of).toFixed(3)} (${count}/${of})`;
  console.log(
    [
      '',
      '## hard-stop: healthy runs stopped, by the repetition evidence of the set (E1-E4 of its README)',
      '',
      '| healthy runs | stopped by hard-stop |',
      '|---|---:|',
      `| with repetition evidence (E1-E4) | ${cell(rows.with)} |`,
      `| without | ${cell(rows.without)} |`,
    ].join('\n'),
  );
}
