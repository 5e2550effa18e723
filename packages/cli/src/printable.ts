const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Whether a UTF-16 code unit is a C0 or C1 control character (or DEL). */
function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/**
 * Text safe to write to a terminal: C0 and C1 control characters (escape sequences, bell,
 * newlines) become visible escapes such as `\x1b` and `\n`, so recorded names cannot move the
 * cursor, retitle the window or split a table row.
 */
export function printable(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code)) continue;
    const c = text[i]!;
    out += text.slice(from, i) + (NAMED[c] ?? `\\x${code.toString(16).padStart(2, '0')}`);
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
