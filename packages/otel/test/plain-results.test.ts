import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuard, guardTool } from '../src/index.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry | undefined;
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
});

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };

function guard() {
  telemetry = createTelemetry();
  return createGuard({ tracerProvider: telemetry.tracerProvider, engine: quiet });
}

describe('a plain function keeps the type of what it returns', () => {
  it('a number stays a number; the notice goes to onNotice and the span', async () => {
    const notices: string[] = [];
    const double = guardTool('double', async (n: number) => n * 2, {
      guard: guard(),
      onNotice: (notice) => notices.push(notice),
    });
    const results = [await double(21), await double(21), await double(21)];
    expect(results).toEqual([42, 42, 42]);
    expect(results.every((r) => typeof r === 'number')).toBe(true);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^\[loopguard\] /);
    const third = telemetry?.spans()[2];
    expect(third?.attributes['loopguard.action']).toBe('nudge');
    expect(third?.events.map((e) => e.name)).toContain('loopguard.nudge');
  });

  it('objects, arrays, Buffers and streams come back as they were returned', async () => {
    const g = guard();
    const values: unknown[] = [
      { rows: [1, 2] },
      [1, 2, 3],
      Buffer.from('bytes'),
      Readable.from(['a', 'b']),
      new ReadableStream({ start: (c) => c.close() }),
      new Map([['k', 1]]),
    ];
    for (const value of values) {
      const tool = g.wrap('same', async () => value);
      const seen = [await tool(), await tool(), await tool()];
      for (const result of seen) expect(result).toBe(value);
    }
  });

  it('a string gets the notice after a blank line; an MCP result an extra text item', async () => {
    const g = guard();
    const text = g.wrap('text', async () => 'hits: 3');
    const texts = [await text(), await text(), await text()];
    expect(texts[2]).toMatch(/^hits: 3\n\n\[loopguard\] /);
    const mcp = g.wrap('mcp', async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const results = [await mcp(), await mcp(), await mcp()];
    expect(results[2]?.content).toHaveLength(2);
    expect(results[2]?.content[1]).toMatchObject({ type: 'text' });
    expect(results[0]?.content).toHaveLength(1);
  });
});
