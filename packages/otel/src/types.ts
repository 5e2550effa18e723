import type { Engine, EngineOptions, StopDecision } from '@loopguard/engine';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { InstrumentationConfig } from '@opentelemetry/instrumentation';

/** Opt-in capture of tool arguments and results as span attributes. */
export interface CaptureOptions {
  /** Default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === 'true'`. */
  enabled?: boolean;
  /**
   * Called for every object key (at any depth); returns the value to record. Default redacts
   * keys that name passwords, passphrases, tokens, secrets, authorization, cookies, credentials,
   * API/private/access keys, or are exactly `auth` / `x-auth`, to `'[REDACTED]'` (docs/otel.md).
   */
  redact?: (key: string, value: unknown) => unknown;
  /** Characters per attribute before truncation with `…`; default 4096. */
  maxLength?: number;
}

/** Options of `createGuard`, all optional. */
export interface GuardOptions {
  /** An engine, or options for `createEngine`. */
  engine?: Engine | EngineOptions;
  /** Default: the global tracer provider. */
  tracerProvider?: TracerProvider;
  /** Default: the global meter provider (looked up at call time). */
  meterProvider?: MeterProvider;
  /** `true`/`false`, or capture options; default from the environment. */
  capture?: boolean | CaptureOptions;
  /** When a call makes the engine record a halt: throw `LoopHaltError` (default) or return a final result. */
  onHalt?: 'throw' | 'return';
  /** Recorded as `gen_ai.agent.name` on every span. */
  agentName?: string;
}

/** Token counts of a model step or run, where the framework reports them. */
export interface TokenUsage {
  /** `gen_ai.usage.input_tokens` (cached input included) */
  inputTokens?: number;
  /** `gen_ai.usage.output_tokens` */
  outputTokens?: number;
  /** `gen_ai.usage.cache_read.input_tokens` */
  cacheReadInputTokens?: number;
}

/**
 * The model step that produced a tool call: `id` is the same for every call of the step (its
 * parallel calls share it), so readers count its tokens once. Read when the call's span ends,
 * so an adapter may fill in usage that arrives after the call started (a streamed step).
 */
export interface ModelStep extends TokenUsage {
  /** `loopguard.step.id` */
  id: string;
  /** `gen_ai.request.model` */
  requestModel?: string;
  /** `gen_ai.response.model` */
  responseModel?: string;
}

/** One tool call as an adapter describes it. */
export interface ToolCallInfo {
  tool: string;
  /** Arguments as an object or as the JSON string a model emitted. */
  args?: unknown;
  /** Explicit scope key; otherwise resolved from context (see `withScope`). */
  scope?: string;
  /** `gen_ai.tool.call.id` */
  callId?: string;
  /** `gen_ai.tool.type`, e.g. `function`, `extension`, `datastore`. */
  toolType?: string;
  /** `gen_ai.agent.name` for this call, overriding `GuardOptions.agentName`. */
  agentName?: string;
  /** `gen_ai.agent.id` */
  agentId?: string;
  /** The model step that produced the call (token usage, models), where the adapter knows it. */
  step?: ModelStep;
}

/** How a framework carries results: adapters supply one; the default treats results as strings/JSON. */
export interface ResultAdapter<T> {
  /** A synthetic error result telling the model why the call did not run. */
  blocked(decision: StopDecision): T;
  /** Returns a new result with `notice` added; never mutates `result`. */
  appendNotice(result: T, notice: string): T;
  /** Whether a returned result reports a failure (e.g. MCP `isError: true`). */
  isError?(result: T): boolean;
  /** What the engine hashes for no-progress, cycle and poll detection. */
  forHash?(result: T): unknown;
  /**
   * Whether a thrown error is the framework's control flow rather than a failure (a LangGraph
   * interrupt): the call is withdrawn from the engine (not counted at all: the framework runs it
   * again), its span ends without error status but with an `exception` event naming the error's
   * type, and the error is re-thrown unchanged.
   */
  isControlFlow?(error: unknown): boolean;
}

/** Options of `Guard.wrap`. */
export interface WrapOptions<A extends unknown[], R> {
  /** Scope key, fixed or computed from the call's arguments (a callback that throws: context scope). */
  scope?: string | ((...args: A) => string | undefined);
  /** What the engine hashes as the arguments; default: the first argument, or all of them. */
  argsOf?: (...args: A) => unknown;
  adapter?: ResultAdapter<R>;
  /**
   * Told the notice (nudge or warning text) of a call whose result cannot carry it without
   * changing type (with the default adapter: anything but a string or an MCP-style
   * `{ content: [...] }` result), so the host can show it to the model its own way. The result
   * is returned unchanged either way.
   */
  onNotice?: (notice: string) => void;
}

/** Spans, metrics and loop decisions for tool calls. */
export interface Guard {
  /** The one place a tool call becomes a span + engine decision. Never throws loopguard's own errors. */
  traceToolCall<T>(
    info: ToolCallInfo,
    run: () => T | Promise<T>,
    adapter?: ResultAdapter<T>,
  ): Promise<T>;
  /** Plain-function adapter: wraps fn so each call goes through traceToolCall. */
  wrap<A extends unknown[], R>(
    tool: string,
    fn: (...args: A) => R | Promise<R>,
    options?: WrapOptions<A, R>,
  ): (...args: A) => Promise<R>;
  /** The engine deciding for this guard. */
  readonly engine: Engine;
  /** Flushes the providers this guard was given (idempotent, never rejects). */
  forceFlush(): Promise<void>;
  /** Flushes and stops recording; later calls run unguarded (idempotent). */
  shutdown(): Promise<void>;
}

/** Options of `LoopguardInstrumentation`. */
export interface LoopguardInstrumentationConfig extends InstrumentationConfig {
  /** Guard used by patched frameworks; default: `getGuard()` at call time. */
  guard?: Guard;
}
