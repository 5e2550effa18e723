import { type FileHandle, mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SpanRecord } from '../otlp/index.js';

/**
 * A file of the spans detection holds until their scope settles, so that a 200 for them means
 * committed: each request's held spans are written and synced before it is answered, and a
 * dashboard that was killed decides them after its restart. The file is emptied whenever nothing
 * is held, and rewritten with only the held spans when it grows past `maxBytes`.
 */
export interface DetectionJournal {
  /** Writes the spans and syncs the file (concurrent calls share one sync). */
  append(spans: readonly SpanRecord[]): Promise<void>;
  /** Empties the file when `nothingHeld()` is true once the writes before it are done. */
  clearIf(nothingHeld: () => boolean): Promise<void>;
  /** Rewrites the file with `held()` when it has grown past its bound. */
  compactIf(held: () => readonly SpanRecord[]): Promise<void>;
  /** Closes the file; idempotent. */
  close(): Promise<void>;
}

/** An opened journal and the spans a previous process left in it. */
export interface OpenedJournal {
  journal: DetectionJournal;
  /** Spans held when the previous process stopped, in the order they came. */
  recovered: SpanRecord[];
  /** Lines that could not be read (a line cut short by a crash, at most). */
  unreadable: number;
}

// A line is a span as one JSON array, its fields in this order (times as decimal text): plain
// values and string maps only, which JSON.stringify writes on its fast path (a replacer for the
// bigints made the journal a third of the cost of deciding a span).
function lineOf(s: SpanRecord): string {
  return JSON.stringify([
    s.traceId,
    s.spanId,
    s.parentSpanId,
    s.traceState,
    s.name,
    s.kind,
    s.serviceName,
    s.scopeName,
    s.scopeVersion,
    s.startTimeUnixNano.toString(),
    s.durationNs.toString(),
    s.statusCode,
    s.statusMessage,
    s.attributes,
    s.resourceAttributes,
    s.events.map((e) => [e.timeUnixNano.toString(), e.name, e.attributes]),
    s.links.map((l) => [l.traceId, l.spanId, l.traceState, l.attributes]),
  ]);
}

type Line = [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  Record<string, string>,
  Record<string, string>,
  [string, string, Record<string, string>][],
  [string, string, string, Record<string, string>][],
];

function spanOf(line: string): SpanRecord {
  const v = JSON.parse(line) as Line;
  if (!Array.isArray(v) || v.length !== 17) throw new Error('not a journal line');
  return {
    traceId: v[0],
    spanId: v[1],
    parentSpanId: v[2],
    traceState: v[3],
    name: v[4],
    kind: v[5],
    serviceName: v[6],
    scopeName: v[7],
    scopeVersion: v[8],
    startTimeUnixNano: BigInt(v[9]),
    durationNs: BigInt(v[10]),
    statusCode: v[11],
    statusMessage: v[12],
    attributes: v[13],
    resourceAttributes: v[14],
    events: v[15].map(([t, name, attributes]) => ({ timeUnixNano: BigInt(t), name, attributes })),
    links: v[16].map(([traceId, spanId, traceState, attributes]) => ({
      traceId,
      spanId,
      traceState,
      attributes,
    })),
  };
}

/** Opens (or creates) the journal at `path` and reads what it holds. */
export async function openJournal(
  path: string,
  options: { maxBytes?: number } = {},
): Promise<OpenedJournal> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  await mkdir(dirname(path), { recursive: true });
  const recovered: SpanRecord[] = [];
  let unreadable = 0;
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return '';
    throw e;
  });
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let span: SpanRecord;
    try {
      span = spanOf(line);
    } catch {
      unreadable++;
      continue;
    }
    // a span appended again after a rewrite is there twice
    const key = `${span.traceId}/${span.spanId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    recovered.push(span);
  }
  let fh: FileHandle = await open(path, 'a');
  let bytes = Buffer.byteLength(text);
  // a line cut short would join the next one written
  if (text !== '' && !text.endsWith('\n')) {
    await fh.write('\n');
    bytes++;
  }
  let chain: Promise<unknown> = Promise.resolve();
  const queued = <T>(op: () => Promise<T>): Promise<T> => {
    const run = chain.then(op);
    chain = run.catch(() => undefined);
    return run;
  };
  let waiting: string[] = [];
  let pending: Promise<void> | undefined;
  let closed: Promise<void> | undefined;
  const journal: DetectionJournal = {
    append(spans) {
      if (spans.length === 0) return Promise.resolve();
      for (const s of spans) waiting.push(lineOf(s));
      // one write and one sync for every append queued while the previous one ran
      pending ??= queued(async () => {
        pending = undefined;
        const text = `${waiting.join('\n')}\n`;
        waiting = [];
        await fh.write(text);
        await fh.datasync();
        bytes += Buffer.byteLength(text);
      });
      return pending;
    },
    clearIf(nothingHeld) {
      return queued(async () => {
        if (bytes === 0 || waiting.length > 0 || !nothingHeld()) return;
        await fh.truncate(0);
        await fh.datasync();
        bytes = 0;
      });
    },
    compactIf(held) {
      return queued(async () => {
        if (bytes <= maxBytes) return;
        const spans = held();
        const text = spans.length === 0 ? '' : `${spans.map(lineOf).join('\n')}\n`;
        const tmp = `${path}.tmp`;
        const out = await open(tmp, 'w');
        try {
          await out.write(text);
          await out.datasync();
        } finally {
          await out.close();
        }
        await fh.close();
        await rename(tmp, path);
        fh = await open(path, 'a');
        bytes = Buffer.byteLength(text);
        // lines queued meanwhile are written after the rewrite by their own append
      });
    },
    close() {
      closed ??= queued(() => fh.close());
      return closed;
    },
  };
  return { journal, recovered, unreadable };
}
