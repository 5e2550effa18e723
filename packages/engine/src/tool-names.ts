/** Glob characters of a tool name pattern: `*` any run of characters, `?` one character. */
const GLOB = /[*?]/;

/**
 * Whether `name` matches the glob `pattern`, at worst in time proportional to their lengths'
 * product: on a mismatch after a `*`, only the last `*` is retried one character further. A
 * RegExp built from the glob backtracked over every star: `*a*a*...*b` with twelve stars took
 * minutes against a 60-character name, on every call that repeats the previous one.
 */
function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const c = pattern[p];
    if (c === '*') {
      star = p++;
      resume = n;
    } else if (c !== undefined && (c === '?' || c === name[n])) {
      p++;
      n++;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/** A set of tool names and glob patterns (`mcp__*`, `fetch_?`); names are matched exactly. */
export class ToolNames {
  readonly #names = new Set<string>();
  readonly #patterns: string[] = [];

  constructor(entries: Iterable<string>) {
    for (const entry of entries) {
      if (GLOB.test(entry)) this.#patterns.push(entry);
      else this.#names.add(entry);
    }
  }

  /** Whether `tool` is one of the names or matches one of the patterns. */
  has(tool: string): boolean {
    return this.#names.has(tool) || this.#patterns.some((p) => globMatches(p, tool));
  }
}
