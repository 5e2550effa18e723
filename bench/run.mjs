// Runs every benchmark in turn: node bench/run.mjs [engine|otel|ingest|clickhouse ...]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const all = ['engine', 'otel', 'ingest', 'clickhouse'];
const wanted = process.argv.length > 2 ? process.argv.slice(2) : all;
let failed = 0;
for (const name of wanted) {
  const script = fileURLToPath(new URL(`./${name}/run.mjs`, import.meta.url));
  if (!existsSync(script)) {
    console.log(`(bench/${name}: not present)`);
    continue;
  }
  const { status } = spawnSync(process.execPath, ['--expose-gc', script], { stdio: 'inherit' });
  if (status !== 0) failed += 1;
  console.log('');
}
process.exitCode = failed > 0 ? 1 : 0;
