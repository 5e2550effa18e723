import { join } from 'node:path';
import type { SpanRecord } from '../../../otlp/span.js';
import type { Compactor } from '../rollups/index.js';
import type { Serial } from '../serial.js';
import { type KeyedSpans, uniqueSpans, unstoredSpans, withoutEarlierRepeats } from './dedup.js';
import { batchKeys, type RecentSpanKeys } from './recent-keys.js';
import { StageBytes } from './stage.js';
import { groupLoad, removeStaged, type StagedFiles, stageInsert } from './staging.js';

/** An insert waiting for the writer, its files staged. */
interface Pending {
  /** Its spans, each once. */
  batch: KeyedSpans;
  rejected: ReadonlyMap<string, number>;
  staged: StagedFiles;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Options of the group-commit writer. */
export interface WriterOptions {
  writer: Serial;
  stageDir: string;
  maxBatchSpans: number;
  /** Keys of the spans committed lately (the duplicate check's memory). */
  recent: RecentSpanKeys;
  /** Told of the delta rows each commit adds. */
  compactor: Compactor;
  /** Groups of at least this many spans fold their rollups and counters in at once. */
  foldFrom: number;
}

/**
 * Group commit: each insert is staged as NDJSON files (read by DuckDB's read_json) as soon as it
 * arrives, while the writer may be busy; the writer then commits every insert waiting for it in
 * one transaction, as one multi-statement query. Each insert resolves after the transaction
 * holding it committed.
 */
export class GroupWriter {
  private readonly queue: Pending[] = [];
  private draining: Promise<void> | undefined;
  private seq = 0;
  /** The staging files' bytes, built one file at a time (staging is synchronous). */
  private readonly bytes = new StageBytes();

  constructor(private readonly options: WriterOptions) {}

  /** Stages spans and rejection counts; resolves when they are committed. */
  insert(spans: SpanRecord[], rejected: ReadonlyMap<string, number>): Promise<void> {
    let batch: KeyedSpans;
    let staged: StagedFiles;
    try {
      batch = uniqueSpans(spans, batchKeys(spans));
      staged = this.stage(batch.spans, rejected);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ batch, rejected, staged, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  /** Resolves when every queued insert has settled. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private stage(spans: SpanRecord[], rejected: ReadonlyMap<string, number>): StagedFiles {
    return stageInsert(
      this.bytes,
      join(this.options.stageDir, `batch-${this.seq++}`),
      spans,
      rejected,
    );
  }

  private take(): Pending[] {
    const group: Pending[] = [];
    let size = 0;
    const max = this.options.maxBatchSpans;
    while (
      this.queue.length &&
      (group.length === 0 || size + this.queue[0]!.batch.spans.length <= max)
    ) {
      const p = this.queue.shift()!;
      group.push(p);
      size += p.batch.spans.length;
    }
    return group;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) await this.commitGroup(this.take());
    this.draining = undefined;
  }

  private async commitGroup(group: Pending[]): Promise<void> {
    try {
      await this.commit(group);
      for (const p of group) p.resolve();
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      // retry alone so one bad insert does not fail its neighbours
      else for (const p of group) await this.commit([p]).then(p.resolve, p.reject);
    } finally {
      for (const p of group) removeStaged(p.staged);
    }
  }

  /**
   * Commits the spans of a group not stored yet (an exporter re-sends a request that timed out
   * after it committed). The check runs on the writer, after every earlier commit; an insert
   * holding a span stored already or held by an earlier insert of the group is staged again
   * without it, for this commit only (a retry alone starts from the insert as it arrived).
   */
  private async commit(group: Pending[]): Promise<void> {
    const restaged: StagedFiles[] = [];
    try {
      await this.options.writer.run(async (c) => {
        const { recent, compactor, foldFrom } = this.options;
        const batches =
          group.length > 1 ? withoutEarlierRepeats(group.map((p) => p.batch)) : [group[0]!.batch];
        const files: StagedFiles[] = [];
        let spans = 0;
        for (let k = 0; k < group.length; k++) {
          const p = group[k]!;
          let batch = batches[k]!;
          const fresh = await unstoredSpans(c, batch.spans, recent, batch.keys);
          if (fresh !== batch.spans) batch = { spans: fresh, keys: batchKeys(fresh) };
          batches[k] = batch;
          spans += batch.spans.length;
          if (batch === p.batch) files.push(p.staged);
          else {
            const again = this.stage(batch.spans, p.rejected);
            restaged.push(again);
            files.push(again);
          }
        }
        const load = groupLoad(files, spans >= foldFrom);
        try {
          await c.run(`BEGIN TRANSACTION;\n${load.statements.join(';\n')};\nCOMMIT`);
        } catch (error) {
          await c.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
        for (const { keys } of batches)
          for (let i = 0; i < keys.hi.length; i++) recent.addAt(keys, i);
        compactor.added(load.deltaRows);
      });
    } finally {
      for (const s of restaged) removeStaged(s);
    }
  }
}
