import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolNames } from '../src/tool-names.js';

/** The reading of a glob the docs give: `*` any run of characters, `?` one character. */
function reference(pattern: string, name: string): boolean {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's').test(name);
}

describe('nudge.exclude globs', () => {
  it('match as `*` any run and `?` one character (property)', () => {
    const text = (chars: string[]) => fc.string({ unit: fc.constantFrom(...chars), maxLength: 8 });
    fc.assert(
      fc.property(text(['a', 'b', '_', '*', '?', '.']), text(['a', 'b', '_', '.']), (p, name) => {
        expect(new ToolNames([p]).has(name)).toBe(reference(p, name));
      }),
      { numRuns: 2000 },
    );
  });

  it('take time linear in the name for patterns with many stars (a RegExp backtracked for seconds)', () => {
    const names = new ToolNames([`${'*a'.repeat(12)}*b`, 'mcp__*__*__*__*__*__*__x']);
    const started = performance.now();
    expect(names.has('a'.repeat(60))).toBe(false);
    expect(names.has(`mcp__${'server__'.repeat(4)}${'tool_'.repeat(12)}`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
