import { spawn } from 'node:child_process';

/** Output of a finished child process. */
export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout lines that parse as JSON. */
  lines: Record<string, unknown>[];
}

/**
 * The parent's environment without loader flags, loopguard/OTel settings or the package
 * manager's `npm_*` variables, plus `extra`.
 */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'NODE_OPTIONS' || key === 'NODE_PATH') continue;
    if (key.startsWith('OTEL_') || key.startsWith('LOOPGUARD_')) continue;
    if (key.startsWith('VITEST') || key.startsWith('CYBERINE_') || key.startsWith('npm_')) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs `node ...args` and collects its output; kills it after `timeoutMs`. */
export function runNode(
  args: string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs?: number;
    /** The node binary (default: the one running the tests). */
    node?: string;
    /** Called for each stdout line that parses as JSON, with a way to signal the child. */
    onLine?: (line: Record<string, unknown>, kill: (signal: NodeJS.Signals) => void) => void;
  },
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, args, {
      cwd: options.cwd,
      env: options.env,
    });
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        try {
          options.onLine?.(JSON.parse(line) as Record<string, unknown>, (signal) =>
            child.kill(signal),
          );
        } catch {
          // not a JSON line
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 45_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines: Record<string, unknown>[] = [];
      for (const line of stdout.split('\n')) {
        try {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not a result line
        }
      }
      resolve({ code, signal, stdout, stderr, lines });
    });
  });
}
