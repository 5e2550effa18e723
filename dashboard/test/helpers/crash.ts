import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs helpers/insert-child.ts on `path` (the first `spans` agent spans, compacting after `idleMs`
 * without a commit), lets it sleep `sleepMs` after its last commit, then kills it (SIGKILL).
 */
export async function crashAfterInserting(
  path: string,
  spans: number,
  o: { idleMs: number; sleepMs: number },
): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('./insert-child.ts', import.meta.url)),
      path,
      String(spans),
      String(o.idleMs),
      String(o.sleepMs),
    ],
    {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('committed')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}
