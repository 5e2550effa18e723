import { accessSync, constants } from 'node:fs';
import { readConfigFile } from '@loopguard/engine';
import { printable } from './printable.js';

/**
 * Throws unless the config file named on the command line (`--config`) is there and valid: a run
 * under defaults, or with some of its keys left out, would mislead. `what` ends the message:
 * "nothing was <what>".
 */
export function assertConfigFile(file: string, what: string): void {
  try {
    accessSync(file, constants.R_OK);
  } catch (error) {
    throw new Error(`cannot read --config ${file}: ${(error as Error).message}`);
  }
  const { issues } = readConfigFile(file);
  if (issues.length > 0) {
    throw new Error(
      `--config ${file} is not valid, nothing was ${what} ` +
        `(loopguard config check ${file} lists the same):\n` +
        issues.map((issue) => `  ${printable(issue.message)}`).join('\n'),
    );
  }
}
