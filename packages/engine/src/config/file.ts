import { existsSync, readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { ConfigCheck, ConfigIssue } from '../types.js';
import { checkConfig, isRecord } from './check.js';
import { jsonSyntaxMessage } from './json-error.js';
import { fromReferenceConfig, REFERENCE_ROOT_KEY } from './reference-compat.js';

/** File names looked for in the working directory, in order. */
export const CONFIG_FILE_NAMES = [
  'loopguard.config.json',
  'loopguard.config.yaml',
  'loopguard.config.yml',
];

/** The config file to read: `LOOPGUARD_CONFIG`, else the first of CONFIG_FILE_NAMES in `cwd`. */
export function findConfigFile(
  cwd: string,
  env: Record<string, string | undefined>,
): string | undefined {
  const fromEnv = env.LOOPGUARD_CONFIG;
  if (fromEnv) return resolve(cwd, fromEnv);
  for (const name of CONFIG_FILE_NAMES) {
    const path = resolve(cwd, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Parses configuration text (JSON or YAML) in either the native or the reference-002 shape. */
export function parseConfigText(input: string, fileName: string): ConfigCheck {
  // a byte-order mark some editors write (JSON.parse refuses it)
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const json = extname(fileName) === '.json';
  let raw: unknown;
  const warnings: ConfigIssue[] = [];
  try {
    raw = json ? JSON.parse(text) : parseYamlText(text, fileName, warnings);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = json ? jsonSyntaxMessage(message, text) : message;
    return {
      config: {},
      issues: [
        { path: fileName, value: undefined, message: `cannot parse ${fileName}: ${reason}` },
      ],
    };
  }
  const checked = checkParsed(raw);
  return warnings.length === 0
    ? checked
    : { config: checked.config, issues: [...warnings, ...checked.issues] };
}

/**
 * YAML text as data. Its warnings (an unknown directive, an unresolved tag) become issues of the
 * file: the yaml package's own parse printed them as process warnings, past `onDiagnostic`.
 */
function parseYamlText(text: string, fileName: string, issues: ConfigIssue[]): unknown {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw doc.errors[0];
  for (const warning of doc.warnings) {
    const message = `${fileName}: ${warning.message.split('\n')[0]!.replace(/:$/, '')}`;
    issues.push({ path: fileName, value: undefined, message });
  }
  return doc.toJS();
}

/** A parsed config in either shape, checked. */
function checkParsed(raw: unknown): ConfigCheck {
  if (raw === null || raw === undefined) return { config: {}, issues: [] };
  if (isRecord(raw) && REFERENCE_ROOT_KEY in raw) {
    const { [REFERENCE_ROOT_KEY]: section, ...rest } = raw;
    const compat = fromReferenceConfig(section);
    const native = checkConfig(rest);
    // Both shapes in one file: the native keys win over the section's, key by key.
    const c = compat.config.guardrails ?? {};
    const n = native.config.guardrails ?? {};
    return {
      config: {
        ...native.config,
        guardrails: {
          ...c,
          ...n,
          warnAfter: { ...c.warnAfter, ...n.warnAfter },
          hardStopAfter: { ...c.hardStopAfter, ...n.hardStopAfter },
        },
      },
      issues: [...compat.issues, ...native.issues],
    };
  }
  return checkConfig(raw);
}

/** Reads and validates one config file. */
export function readConfigFile(path: string): ConfigCheck {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      config: {},
      issues: [{ path, value: undefined, message: `cannot read ${path}: ${reason}` }],
    };
  }
  return parseConfigText(text, path);
}
