import type { SpanRecord } from '../otlp/index.js';
import type { CounterSnapshot, Store } from '../store/index.js';
import { Detector, type DetectorOptions } from './detector.js';
import type { DetectionJournal } from './journal.js';

/** Options of `detectingStore`. */
export interface DetectingStoreOptions extends DetectorOptions {
  /** How often settled scopes are decided and stored. Default 250 ms. */
  tickMs?: number;
  /**
   * Reports a failed insert of decided calls, or of re-decided ones (they are kept and retried on
   * the next tick).
   */
  onError?: (error: unknown) => void;
  /**
   * Where held spans are written before their request is answered (`openJournal`), so that none
   * is lost when the dashboard is killed; without one, held spans live in memory only.
   */
  journal?: DetectionJournal;
  /** Spans a previous process left in the journal: held again (or stored) at once. */
  recovered?: SpanRecord[];
}

/** A store that decides the tool calls of agents without loopguard before storing them. */
export interface DetectingStore extends Store {
  /** The detection's counters. */
  readonly detector: Detector;
  /** Decides and stores every settled scope now; resolves once they are stored. */
  settle(): Promise<void>;
  /** Stops the timer and stores every pending scope decided now; the wrapped store stays open. */
  stop(): Promise<void>;
}

/**
 * Wraps a store with the dashboard's loop detection: spans of other instrumentations' tool calls
 * are held until their scope settles, then stored with the engine's decisions (Detector). The
 * rest goes to the store at once. `close` decides what is still pending first.
 */
export function detectingStore(store: Store, options: DetectingStoreOptions = {}): DetectingStore {
  const detector = new Detector(options);
  let retry: SpanRecord[] = [];
  let running: Promise<void> | undefined;
  let redo: SpanRecord[] = [];
  const write = async (spans: SpanRecord[]) => {
    const batch = [...retry, ...spans];
    retry = [];
    // re-decided calls replace their stored copies; one still waiting to be stored is replaced here
    const changed = new Map<string, SpanRecord>();
    for (const s of [...redo, ...detector.redecided()]) changed.set(spanKey(s), s);
    redo = [];
    if (batch.length === 0 && changed.size === 0) return;
    for (let i = 0; i < batch.length && changed.size > 0; i++) {
      const now = changed.get(spanKey(batch[i]!));
      if (now === undefined) continue;
      batch[i] = now;
      changed.delete(spanKey(now));
    }
    try {
      if (batch.length > 0) await store.insert(batch);
    } catch (error) {
      retry = batch;
      redo = [...changed.values()];
      options.onError?.(error);
      return;
    }
    if (changed.size > 0 && store.redecide) {
      try {
        await store.redecide([...changed.values()]);
      } catch (error) {
        redo = [...changed.values()];
        options.onError?.(error);
      }
    }
    await settleJournal();
  };
  const journal = options.journal;
  const settleJournal = async () => {
    if (!journal) return;
    try {
      await journal.clearIf(() => retry.length === 0 && detector.stats().pendingCalls === 0);
      await journal.compactIf(() => [...retry, ...detector.heldSpans()]);
    } catch (error) {
      options.onError?.(error);
    }
  };
  const take = (spans: SpanRecord[]) => {
    const kept = detector.take(spans);
    if (kept === spans) return { kept, held: [] };
    const stored = new Set(kept);
    return { kept, held: spans.filter((s) => !stored.has(s)) };
  };
  let recovering: Promise<void> = Promise.resolve();
  if (options.recovered?.length) {
    const { kept } = take(options.recovered);
    if (kept.length) recovering = store.insert(kept).catch((e) => options.onError?.(e));
  }
  const settle = () => {
    running ??= write(detector.due()).finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void settle(), options.tickMs ?? 250);
  timer.unref();
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      clearInterval(timer);
      await running;
      await recovering.catch(() => undefined);
      await write(detector.flush());
      await journal?.close();
    })();
    return stopping;
  };
  let closing: Promise<void> | undefined;
  return {
    detector,
    settle,
    stop,
    async insert(spans, rejected) {
      const { kept, held } = take(spans);
      // a 200 means committed: held spans are in the journal before the request is answered
      await Promise.all([journal?.append(held), store.insert(kept, rejected)]);
    },
    summary: (filter) => store.summary(filter),
    hotspots: (filter, page) => store.hotspots(filter, page),
    sessions: (filter, page) => store.sessions(filter, page),
    session: (scope, filter, page) => store.session(scope, filter, page),
    series: (filter, bucketMs) => store.series(filter, bucketMs),
    trace: (traceId) => store.trace(traceId),
    facets: (filter) => store.facets(filter),
    spend: (filter, options) => store.spend(filter, options),
    deleteBefore: (cutoffMs) => store.deleteBefore(cutoffMs),
    ...(store.redecide ? { redecide: store.redecide.bind(store) } : {}),
    async counters(): Promise<CounterSnapshot> {
      const snap = await store.counters();
      snap.detection = detector.stats();
      return snap;
    },
    close() {
      closing ??= stop().then(() => store.close());
      return closing;
    },
  };
}

const spanKey = (s: SpanRecord) => `${s.traceId.length}:${s.traceId}${s.spanId}`;
