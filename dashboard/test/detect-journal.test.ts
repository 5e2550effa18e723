import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJournal } from '../src/detect/index.js';
import type { SpanRecord } from '../src/otlp/index.js';
import { makeToolSpan } from './span-fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function path() {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-journal-'));
  dirs.push(dir);
  return join(dir, 'sub', 'db.duckdb.detect.jsonl');
}

function spans(n: number, from = 0): SpanRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const s = makeToolSpan({ tool: 'grep', args: `{"q":${from + i}}` });
    s.events.push({ timeUnixNano: 2n ** 63n + BigInt(i), name: 'e', attributes: { k: 'v' } });
    return s;
  });
}

describe('the detection journal', () => {
  it('gives back what was appended, bigints included, after a reopen', async () => {
    const file = path();
    const first = await openJournal(file);
    expect(first.recovered).toEqual([]);
    const written = spans(3);
    await Promise.all([
      first.journal.append(written.slice(0, 2)),
      first.journal.append(written.slice(2)),
    ]);
    await first.journal.close();
    const again = await openJournal(file);
    expect(again.recovered).toEqual(written);
    expect(again.unreadable).toBe(0);
    await again.journal.close();
  });

  it('leaves out a line cut short and keeps appending on a line of its own', async () => {
    const file = path();
    const a = await openJournal(file);
    await a.journal.append(spans(2));
    await a.journal.close();
    appendFileSync(file, '{"traceId":"ab'); // a crash in the middle of a write
    const b = await openJournal(file);
    expect(b.recovered).toHaveLength(2);
    expect(b.unreadable).toBe(1);
    await b.journal.append(spans(1, 10));
    await b.journal.close();
    const c = await openJournal(file);
    expect(c.recovered.map((s) => s.attributes['gen_ai.tool.call.arguments'])).toEqual([
      '{"q":0}',
      '{"q":1}',
      '{"q":10}',
    ]);
    await c.journal.close();
  });

  it('is emptied only when nothing is held', async () => {
    const file = path();
    const { journal } = await openJournal(file);
    await journal.append(spans(2));
    await journal.clearIf(() => false);
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(3);
    await journal.clearIf(() => true);
    expect(readFileSync(file, 'utf8')).toBe('');
    await journal.close();
  });

  it('is rewritten with the held spans past its bound, and reads each span once', async () => {
    const file = path();
    const { journal } = await openJournal(file, { maxBytes: 1000 });
    const all = spans(6);
    await journal.append(all);
    const before = statSync(file).size;
    expect(before).toBeGreaterThan(1000);
    await journal.compactIf(() => all.slice(4));
    expect(statSync(file).size).toBeLessThan(before);
    // a span held again after the rewrite and appended once more
    await journal.append(all.slice(5));
    await journal.close();
    const again = await openJournal(file);
    expect(again.recovered).toEqual(all.slice(4));
    await again.journal.close();
  });
});
