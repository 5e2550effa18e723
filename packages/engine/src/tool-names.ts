/** Glob characters of a tool name pattern: `*` any run of characters, `?` one character. */
const GLOB = /[*?]/;

function globRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/** A set of tool names and glob patterns (`mcp__*`, `fetch_?`); names are matched exactly. */
export class ToolNames {
  readonly #names = new Set<string>();
  readonly #patterns: RegExp[] = [];

  constructor(entries: Iterable<string>) {
    for (const entry of entries) {
      if (GLOB.test(entry)) this.#patterns.push(globRegExp(entry));
      else this.#names.add(entry);
    }
  }

  /** Whether `tool` is one of the names or matches one of the patterns. */
  has(tool: string): boolean {
    return this.#names.has(tool) || this.#patterns.some((p) => p.test(tool));
  }
}
