import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_HELP, GENERAL_HELP } from '../src/help.js';

// The built binary, as a user runs it (needs `pnpm -C packages/cli run build`).
const bin = fileURLToPath(new URL('../bin/loopguard.js', import.meta.url));

function loopguard(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
}

/** The options a command parses, which its own help must name. */
const OPTIONS: Record<keyof typeof COMMAND_HELP, string[]> = {
  replay: ['--otlp', '--config', '--json', '--all'],
  eval: ['--labels', '--config', '--format', '--json', '--examples'],
  config: ['config check [FILE]', 'LOOPGUARD_CONFIG'],
  dashboard: [
    '--port',
    '--host',
    '--allowed-host',
    '--db',
    '--retention',
    '--token',
    '--store',
    'LOOPGUARD_TOKEN',
  ],
  demo: ['--port', '--host', '--db', '--interval-ms', '.loopguard/demo.duckdb'],
};

describe('loopguard <command> --help', () => {
  it.each(Object.entries(OPTIONS))(
    '%s --help prints that command’s usage and options',
    (command, options) => {
      for (const flag of ['--help', '-h']) {
        const r = loopguard(command, flag);
        expect(r.status).toBe(0);
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(new RegExp(`^Usage:\\n  loopguard ${command}\\b`));
        for (const option of options) expect(r.stdout).toContain(option);
        // not the general help: no other command's usage line
        expect(r.stdout).not.toContain('catch LLM agents repeating themselves');
        for (const other of Object.keys(OPTIONS).filter((c) => c !== command)) {
          expect(r.stdout).not.toContain(`loopguard ${other} `);
        }
      }
    },
  );

  it('--help after other arguments still shows the command’s help, and runs nothing', () => {
    expect(loopguard('replay', 'no-such-file.jsonl', '--json', '--help').stdout).toBe(
      COMMAND_HELP.replay,
    );
    expect(loopguard('config', 'check', '--help').stdout).toBe(COMMAND_HELP.config);
    expect(loopguard('help', 'demo').stdout).toBe(COMMAND_HELP.demo);
  });

  it('loopguard --help, -h and help stay the general help', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['frobnicate', '--help']]) {
      const r = loopguard(...args);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(GENERAL_HELP);
    }
    for (const command of Object.keys(OPTIONS))
      expect(GENERAL_HELP).toContain(`loopguard ${command}`);
  });

  it('a usage error points to the command’s own help', () => {
    const r = loopguard('replay');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('see loopguard replay --help');
  });
});
