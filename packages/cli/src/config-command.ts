import { existsSync } from 'node:fs';
import { CONFIG_FILE_NAMES, findConfigFile, readConfigFile } from '@loopguard/engine';
import { printable } from './printable.js';

/** A message safe for a terminal; the line breaks of a YAML error's excerpt are kept. */
function printableLines(message: string): string {
  return message.split('\n').map(printable).join('\n');
}

/** Runs `loopguard config check [file]`: strict validation; exit 1 when anything is wrong. */
export function runConfigCheck(
  file: string | undefined,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): number {
  const path = file ?? findConfigFile(process.cwd(), process.env);
  if (path === undefined) {
    err.write(`loopguard: no config file given and none found (${CONFIG_FILE_NAMES.join(', ')})\n`);
    return 1;
  }
  if (!existsSync(path)) {
    err.write(`loopguard: ${path}: no such file\n`);
    return 1;
  }
  const { issues } = readConfigFile(path);
  if (issues.length === 0) {
    out.write(`${path}: ok\n`);
    return 0;
  }
  for (const issue of issues) err.write(`${path}: ${printableLines(issue.message)}\n`);
  err.write(`${path}: ${issues.length} problem(s)\n`);
  return 1;
}
