import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const root = fileURLToPath(new URL('../../', import.meta.url));

/** `yaml` is a dependency of @loopguard/engine; borrow it from there instead of adding one. */
const yaml = createRequire(join(root, 'packages/engine/package.json'))('yaml') as {
  parse(source: string): unknown;
  stringify(value: unknown): string;
};

/** Parses YAML text. */
export const parseYaml = (source: string): unknown => yaml.parse(source);
/** Serialises a value as YAML. */
export const stringifyYaml = (value: unknown): string => yaml.stringify(value);

/** Reads and parses a YAML file relative to the repository root. */
export async function readYaml<T>(path: string): Promise<T> {
  return parseYaml(await readFile(join(root, path), 'utf8')) as T;
}

/** Absolute path of an executable on PATH, or undefined. */
export function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Result of running a command to completion. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command without a shell and collects its output; never rejects on a non-zero exit. */
export function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd: options.cwd ?? root, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** One alerting rule as written in prometheus/rules/*.yml. */
export interface PromRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The rule file that is the single source of truth for alert PromQL. */
export const RULES_FILE = 'prometheus/rules/loopguard.rules.yml';

/** Loads every alerting rule of the loopguard rule file. */
export async function loadRules(): Promise<PromRule[]> {
  const doc = await readYaml<{ groups: { name: string; rules: PromRule[] }[] }>(RULES_FILE);
  return doc.groups.flatMap((group) => group.rules);
}
