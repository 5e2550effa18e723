const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text safe to write to a terminal: C0 and C1 control characters (escape sequences, bell,
 * newlines) become visible escapes such as `\x1b` and `\n`, so recorded names cannot move the
 * cursor, retitle the window or split a table row.
 */
export function printable(text: string): string {
  return text.replace(
    CONTROL,
    (c) => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
