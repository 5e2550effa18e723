import { createEngine, type Engine, type EngineOptions } from '@loopguard/engine';
import { diag, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import type { TraceState } from './call-state.js';
import { resolveCapture } from './capture.js';
import { defaultResultAdapter } from './default-adapter.js';
import { GuardMetrics } from './metrics.js';
import { scopeOfOption } from './scope.js';
import { traceToolCall } from './trace-tool-call.js';
import type { Guard, GuardOptions, ResultAdapter, ToolCallInfo, WrapOptions } from './types.js';
import { VERSION } from './version.js';

function isEngine(value: Engine | EngineOptions | undefined): value is Engine {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Engine).beforeCall === 'function' &&
    typeof (value as Engine).afterCall === 'function'
  );
}

interface Flushable {
  forceFlush?: () => Promise<void>;
}

async function flushQuietly(provider: unknown): Promise<void> {
  const flush = (provider as Flushable | undefined)?.forceFlush;
  if (typeof flush !== 'function') return;
  try {
    await flush.call(provider);
  } catch (error) {
    diag.warn('loopguard: forceFlush failed', error);
  }
}

/** Scopes whose sequence numbers are kept; past it the oldest scope started is forgotten. */
const MAX_SEQUENCED_SCOPES = 10_000;

/** `nextSequence` of a guard: per scope 1, 2, 3… with bounded memory (oldest scope out first). */
function sequencer(): (scope: string) => number {
  const next = new Map<string, number>();
  return (scope) => {
    const n = (next.get(scope) ?? 0) + 1;
    if (n === 1 && next.size >= MAX_SEQUENCED_SCOPES) {
      const oldest = next.keys().next();
      if (!oldest.done) next.delete(oldest.value);
    }
    next.set(scope, n);
    return n;
  };
}

function argsOfDefault(args: readonly unknown[]): unknown {
  return args.length <= 1 ? args[0] : args;
}

/** `adapter` (default: the default adapter), telling `onNotice` each notice it did not add. */
function telling<R>(
  adapter: ResultAdapter<R> | undefined,
  onNotice: (notice: string) => void,
): ResultAdapter<R> {
  const base = adapter ?? (defaultResultAdapter as ResultAdapter<R>);
  const told: ResultAdapter<R> = Object.create(base);
  told.appendNotice = (result, notice) => {
    const noticed = base.appendNotice(result, notice);
    if (noticed === result) onNotice(notice);
    return noticed;
  };
  return told;
}

/**
 * The tracer of an explicit provider, or of the global one as it is at each call: a provider
 * registered after the guard was created is used from then on. A tracer taken from the global
 * API once would not follow it where the ESM and CommonJS builds of `@opentelemetry/api` (1.10
 * and later) each hold their own proxy: the SDK registers through one, this code may read the other.
 */
function tracerSource(explicit: TracerProvider | undefined): () => Tracer {
  if (explicit) {
    const tracer = explicit.getTracer('@loopguard/otel', VERSION);
    return () => tracer;
  }
  let provider: TracerProvider | undefined;
  let tracer: Tracer | undefined;
  return () => {
    const current = trace.getTracerProvider();
    if (current !== provider || !tracer) {
      provider = current;
      tracer = current.getTracer('@loopguard/otel', VERSION);
    }
    return tracer;
  };
}

/**
 * Creates a guard: spans, metrics and loop decisions for tool calls. Throws only for invalid
 * options (an engine that cannot be created); tool calls never see loopguard's own errors.
 */
export function createGuard(options: GuardOptions = {}): Guard {
  const engine = isEngine(options.engine) ? options.engine : createEngine(options.engine);
  const tracerProvider = options.tracerProvider;
  const meterProvider = options.meterProvider;
  let reported = false;
  const state: TraceState = {
    engine,
    tracer: tracerSource(tracerProvider),
    metrics: new GuardMetrics(meterProvider),
    capture: resolveCapture(options.capture),
    onHalt: options.onHalt === 'return' ? 'return' : 'throw',
    agentName: options.agentName,
    active: true,
    nextSequence: sequencer(),
    report(error) {
      if (reported) return;
      reported = true;
      diag.warn(
        'loopguard: internal error; the tool call ran unguarded (reported once per guard)',
        error,
      );
    },
  };
  let stopping: Promise<void> | undefined;
  // Every call flushes: one still exporting has not taken the spans ended since it started.
  const forceFlush = (): Promise<void> =>
    Promise.all([flushQuietly(tracerProvider), flushQuietly(meterProvider)]).then(() => {});

  const guard: Guard = {
    engine,
    traceToolCall<T>(
      info: ToolCallInfo,
      run: () => T | Promise<T>,
      adapter?: ResultAdapter<T>,
    ): Promise<T> {
      return traceToolCall(state, info, run, adapter);
    },
    wrap<A extends unknown[], R>(
      tool: string,
      fn: (...args: A) => R | Promise<R>,
      wrapOptions: WrapOptions<A, R> = {},
    ): (...args: A) => Promise<R> {
      const { scope, argsOf, onNotice } = wrapOptions;
      const adapter = onNotice ? telling(wrapOptions.adapter, onNotice) : wrapOptions.adapter;
      const scoping = { scope };
      return function guarded(this: unknown, ...args: A): Promise<R> {
        let info: ToolCallInfo;
        try {
          info = { tool, args: argsOf ? argsOf(...args) : argsOfDefault(args) };
        } catch (error) {
          state.report(error);
          return Promise.resolve().then(() => fn.apply(this, args));
        }
        info.scope = scopeOfOption(scoping, args, 'scope callback of a guarded function');
        return traceToolCall(state, info, () => fn.apply(this, args), adapter);
      };
    },
    forceFlush,
    shutdown(): Promise<void> {
      stopping ??= forceFlush().then(() => {
        state.active = false;
      });
      return stopping;
    },
  };
  states.set(guard, state);
  return guard;
}

/** The state of each guard `createGuard` made, for the adapters' run spans. */
const states = new WeakMap<Guard, TraceState>();

/**
 * The tracer and agent name a run of `guard` records with: the guard's own, or the global
 * tracer for a guard of the host's making. Undefined once the guard is shut down.
 */
export function runTracerOf(
  guard: Guard,
): { tracer: Tracer; agentName: string | undefined } | undefined {
  const state = states.get(guard);
  if (!state) return { tracer: trace.getTracer('@loopguard/otel', VERSION), agentName: undefined };
  if (!state.active) return undefined;
  return { tracer: state.tracer(), agentName: state.agentName };
}

let defaultGuard: Guard | undefined;

/** The process-wide default guard (used by adapters and `register`), created on first use. */
export function getGuard(): Guard {
  if (defaultGuard) return defaultGuard;
  try {
    defaultGuard = createGuard();
  } catch (error) {
    diag.warn('loopguard: default guard could not read its configuration; using defaults', error);
    defaultGuard = createGuard({ engine: { configFile: false } });
  }
  return defaultGuard;
}

/** Replaces the process-wide default guard returned by `getGuard`. */
export function setGuard(guard: Guard): void {
  defaultGuard = guard;
}
