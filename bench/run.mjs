// Runs every benchmark in turn: node bench/run.mjs [engine|otel|ingest|clickhouse|trajectories|hardening ...]
// bench/clickhouse runs on 1 M spans here (its own default, 10 M, takes 5-15 minutes on 2 cores:
// node bench/clickhouse/run.mjs --rows 10000000). bench/trajectories is no timing: it prints the
// figures of `loopguard eval` on ../shared/trajectories (skipped when that folder is absent).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const all = ['engine', 'otel', 'ingest', 'clickhouse', 'trajectories', 'hardening'];
const extraArgs = { clickhouse: ['--rows', process.env.BENCH_CLICKHOUSE_ROWS ?? '1000000'] };
const wanted = process.argv.length > 2 ? process.argv.slice(2) : all;
let failed = 0;
for (const name of wanted) {
  const script = fileURLToPath(new URL(`./${name}/run.mjs`, import.meta.url));
  if (!existsSync(script)) {
    console.log(`(bench/${name}: not present)`);
    continue;
  }
  const args = ['--expose-gc', script, ...(extraArgs[name] ?? [])];
  const { status } = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (status !== 0) failed += 1;
  console.log('');
}
process.exitCode = failed > 0 ? 1 : 0;
