// Packs what a user installs into one folder (default: packs/): the agent side as
// loopguard-engine-<v>.tgz and loopguard-otel-<v>.tgz, and the tools as loopguard-<v>.tgz, the
// CLI with the dashboard (server and built UI) and the engine inside it, so that
// `npm install -g ./packs/loopguard-<v>.tgz` gives a working `loopguard` with no workspace.
// node scripts/pack.mjs [--out DIR]   (run `pnpm run build` first; `pnpm run pack` does both)
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = process.argv.indexOf('--out');
const OUT = resolve(outFlag > 0 ? (process.argv[outFlag + 1] ?? 'packs') : join(ROOT, 'packs'));
/** The workspace packages, by folder. */
const PACKAGES = {
  engine: 'packages/engine',
  otel: 'packages/otel',
  dashboard: 'dashboard',
  cli: 'packages/cli',
};
/** What the `loopguard` tarball carries inside it (npm bundleDependencies). */
const BUNDLED = ['cli', 'dashboard', 'engine'];

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

mkdirSync(OUT, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'loopguard-pack-'));
try {
  const tarballs = {};
  for (const [key, folder] of Object.entries(PACKAGES)) {
    const dir = join(ROOT, folder);
    const { name, version } = readJson(join(dir, 'package.json'));
    // pnpm pack writes workspace:* as the version it stands for
    run('pnpm', ['pack', '--pack-destination', work], dir);
    tarballs[key] = join(work, `${name.replace('@', '').replace('/', '-')}-${version}.tgz`);
  }
  for (const key of ['engine', 'otel'])
    cpSync(tarballs[key], join(OUT, tarballs[key].split('/').pop()));

  const cli = readJson(join(ROOT, PACKAGES.cli, 'package.json'));
  const stage = join(work, 'loopguard');
  const dependencies = {};
  const bundled = [];
  for (const key of BUNDLED) {
    const into = join(stage, 'node_modules', '@loopguard', key);
    mkdirSync(into, { recursive: true });
    run('tar', ['-xzf', tarballs[key], '-C', into, '--strip-components=1'], work);
    const manifest = readJson(join(into, 'package.json'));
    dependencies[manifest.name] = manifest.version;
    bundled.push(manifest.name);
    for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
      if (!dep.startsWith('@loopguard/')) dependencies[dep] = range;
    }
    // npm takes the dependencies of a bundled package for part of the bundle too (and leaves
    // their folders empty); declared by `loopguard` instead, they are installed beside it
    delete manifest.dependencies;
    writeFileSync(join(into, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  mkdirSync(join(stage, 'bin'), { recursive: true });
  writeFileSync(
    join(stage, 'bin', 'loopguard.js'),
    "#!/usr/bin/env node\nimport '../node_modules/@loopguard/cli/bin/loopguard.js';\n",
    { mode: 0o755 },
  );
  writeFileSync(
    join(stage, 'package.json'),
    `${JSON.stringify(
      {
        name: 'loopguard',
        version: cli.version,
        description:
          'loopguard tools: the dashboard (OTLP/HTTP in, DuckDB, UI, /metrics), replay, eval and config check.',
        license: cli.license,
        type: 'module',
        bin: { loopguard: './bin/loopguard.js' },
        engines: cli.engines,
        dependencies: Object.fromEntries(Object.entries(dependencies).sort()),
        bundleDependencies: bundled,
      },
      null,
      2,
    )}\n`,
  );
  const file = run('npm', ['pack', '--pack-destination', OUT, '--loglevel=error'], stage).trim();
  for (const name of [...['engine', 'otel'].map((k) => tarballs[k].split('/').pop()), file]) {
    process.stdout.write(`${join(OUT, name.split('\n').pop())}\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
