// bench/trajectories: `loopguard eval` on the labelled real agent runs of ../shared/trajectories
// (beside the repository), with the shipped configurations (packages/cli/configs: default and
// hard-stop) and the two peer rules. Not a timing: it prints the figures docs/eval.md publishes.
// Run: node bench/trajectories/run.mjs [--examples | --json]   (after pnpm run build)
// LOOPGUARD_TRAJECTORIES=<folder> reads another copy of the set.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
    ...process.argv.slice(2),
  ];
  const { status } = spawnSync(process.execPath, args, { cwd: repo, stdio: 'inherit', env });
  process.exitCode = status ?? 1;
}
