// JSON.parse names where a syntax error is as a character offset ("at position 44"), or, for an
// unexpected token, not at all ("Unexpected token 'i', "...excerpt..." is not valid JSON"). A
// config file's reader wants a line and a column, as the YAML parser gives them.

const WS = /[ \t\n\r]*/y;
// control characters are let through: JSON.parse names the position of those itself
const STRING = /"(?:[^"\\]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;
const TOKEN = /[\w.+-]+|[\s\S]/y;

/** `line L, column C` (both from 1) of a character offset of `text`. */
function lineAndColumn(text: string, offset: number): string {
  const lines = text.slice(0, offset).split(/\r\n|\r|\n/);
  return `line ${lines.length}, column ${lines[lines.length - 1]!.length + 1}`;
}

/** Where JSON `text` first goes wrong; undefined when it is valid (or nested too deep to follow). */
function errorOffset(text: string): number | undefined {
  let i = 0;
  const eat = (re: RegExp): boolean => {
    re.lastIndex = i;
    if (!re.test(text)) return false;
    i = re.lastIndex;
    return true;
  };
  /** Skips blanks, then takes `c` if it comes next. */
  const char = (c: string): boolean => {
    eat(WS);
    if (text[i] !== c) return false;
    i += 1;
    return true;
  };
  const value = (): boolean => {
    if (char('{')) {
      if (char('}')) return true;
      do {
        if (!(eat(WS) && eat(STRING) && char(':') && value())) return false;
      } while (char(','));
      return char('}');
    }
    if (char('[')) {
      if (char(']')) return true;
      do {
        if (!value()) return false;
      } while (char(','));
      return char(']');
    }
    eat(WS);
    return eat(STRING) || eat(NUMBER) || eat(LITERAL);
  };
  try {
    if (value() && eat(WS) && i === text.length) return undefined;
  } catch {
    return undefined; // nested deeper than the stack goes
  }
  return i;
}

/** JSON.parse's message about `text`, with the place of the error as `at line L, column C`. */
export function jsonSyntaxMessage(message: string, text: string): string {
  // newer Node versions add " (line 4 column 3)" to the offset themselves
  const at = /at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
  if (at) return message.replace(at[0], `at ${lineAndColumn(text, Number(at[1]))}`);
  if (!message.startsWith('Unexpected token')) return message;
  const offset = errorOffset(text);
  if (offset === undefined) return message;
  TOKEN.lastIndex = offset;
  const token = TOKEN.exec(text)?.[0] ?? '';
  return `Unexpected token ${JSON.stringify(token)} in JSON at ${lineAndColumn(text, offset)}`;
}
