import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspace root. */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const LOCK = join(tmpdir(), 'loopguard-otel-build.lock');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function stale(pkg: string, entry: string): boolean {
  const dir = join(ROOT, 'packages', pkg);
  try {
    return statSync(join(dir, 'dist', entry)).mtimeMs < newest(join(dir, 'src'));
  } catch {
    return true;
  }
}

function build(pkg: string, entry: string): void {
  if (!stale(pkg, entry)) return;
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
      cwd: join(ROOT, 'packages', pkg),
      stdio: 'pipe',
    });
  } catch (error) {
    // tsc still emits on type errors elsewhere in the package; only a missing entry is fatal.
    if (stale(pkg, entry)) throw error;
  }
}

/** Builds @loopguard/engine and @loopguard/otel to dist/ when their sources are newer (under a lock). */
export async function ensureBuilt(): Promise<void> {
  const deadline = Date.now() + 110_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() > deadline) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    build('engine', 'index.js');
    build('otel', 'register.js');
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
