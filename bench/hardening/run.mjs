// The hardening benchmarks in turn: what a guarded call costs the host for large and strange
// values, and what one request may cost the dashboard in memory.
// node bench/hardening/run.mjs (or: pnpm run bench hardening)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

let failed = 0;
for (const name of ['host-cost', 'memory']) {
  const script = fileURLToPath(new URL(`./${name}.mjs`, import.meta.url));
  const { status } = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (status !== 0) failed += 1;
  console.log('');
}
process.exitCode = failed > 0 ? 1 : 0;
