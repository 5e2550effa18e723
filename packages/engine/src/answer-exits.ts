/** Tools that run a shell command: their failure is the exit status of the command's last program. */
const SHELL_TOOLS = new Set([
  'bash',
  'sh',
  'zsh',
  'shell',
  'terminal',
  'run_command',
  'execute_command',
  'exec',
  'run_shell_command',
  'execute_bash',
  'run_terminal_cmd',
]);

/** Argument keys a shell tool's command is read from. */
const COMMAND_KEYS = ['command', 'cmd', 'script'];

/** Only the end of a long command is read: its last program decides its exit status. */
const TAIL_CHARS = 2048;

/** Words before a program that run it (`sudo grep`, `timeout 10 pylint`, `VAR=1 diff`). */
const PREFIXES = new Set(['sudo', 'time', 'timeout', 'env', 'nohup', 'command', 'exec', 'nice']);

/** The command text of a shell call: a string argument, or its `command`/`cmd`/`script` member. */
function commandOf(args: unknown): string | undefined {
  if (typeof args === 'string') {
    if (!args.startsWith('{')) return args;
    try {
      return commandOf(JSON.parse(args.length > 65_536 ? '{}' : args));
    } catch {
      return args;
    }
  }
  if (args === null || typeof args !== 'object') return undefined;
  for (const key of COMMAND_KEYS) {
    let value: unknown;
    try {
      value = (args as Record<string, unknown>)[key];
    } catch {
      return undefined;
    }
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * The program whose exit status is the command's: the first word of its last simple command
 * (after the last newline, `;`, `&&`, `||` or `|`), past assignments and wrappers such as `sudo`,
 * as a base name; `python -m <module>` gives the module.
 */
export function lastProgram(command: string): string | undefined {
  const tail = command.length > TAIL_CHARS ? command.slice(-TAIL_CHARS) : command;
  const parts = tail.split(/\n|;|&&|\|\||\|/);
  let last: string | undefined;
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]?.trim();
    if (part) {
      last = part;
      break;
    }
  }
  if (last === undefined) return undefined;
  const words = last.split(/\s+/);
  let i = 0;
  while (i < words.length) {
    const word = words[i] ?? '';
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i += 1;
    else if (PREFIXES.has(word)) {
      i += 1;
      if (word === 'timeout' && /^\d/.test(words[i] ?? '')) i += 1;
      while ((words[i] ?? '').startsWith('-')) i += 1;
    } else break;
  }
  const word = words[i];
  if (word === undefined) return undefined;
  const program = word.slice(word.lastIndexOf('/') + 1);
  if (/^python[0-9.]*$/.test(program) && words[i + 1] === '-m') return words[i + 2];
  return program;
}

/**
 * Whether a failed call of `tool` is an answer rather than a failure: a shell tool whose command's
 * last program is one of `programs` (a `grep` that found nothing, a linter that found something).
 */
export function isAnswerExit(tool: string, args: unknown, programs: readonly string[]): boolean {
  if (programs.length === 0 || !SHELL_TOOLS.has(tool.toLowerCase())) return false;
  const command = commandOf(args);
  if (command === undefined) return false;
  const program = lastProgram(command);
  return program !== undefined && programs.includes(program);
}
