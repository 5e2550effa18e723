import { AsyncLocalStorage } from 'node:async_hooks';
import { type Context, context, createContextKey, propagation, trace } from '@opentelemetry/api';
import { currentAgentRun } from './agent-run.js';
import { ATTR_GEN_AI_CONVERSATION_ID } from './semconv.js';
import { warnOnce } from './warn-once.js';

const SCOPE_KEY = createContextKey('loopguard.scope');
const local = new AsyncLocalStorage<string>();

/** Where a scope came from (the conversation, when there is one, is recorded either way). */
export type ScopeSource = 'explicit' | 'conversation' | 'trace' | 'process';

/** A resolved scope key. */
export interface ResolvedScope {
  scope: string;
  source: ScopeSource;
  /**
   * The conversation of the context (`withScope`, or the baggage entry), also when an explicit
   * scope decides the engine's scope: a span records it as `gen_ai.conversation.id` when known.
   */
  conversation: string | undefined;
}

/**
 * Runs `fn` with `scope` as the conversation: tool calls inside it (and in async work it starts)
 * share one loopguard scope and record it as `gen_ai.conversation.id`. Works with or without an
 * OpenTelemetry context manager: the scope is kept in an own AsyncLocalStorage, the OTel context
 * and the `gen_ai.conversation.id` baggage entry.
 */
export function withScope<T>(scope: string, fn: () => T): T {
  const active = context.active();
  const baggage = propagation.getBaggage(active) ?? propagation.createBaggage();
  const ctx = propagation
    .setBaggage(active, baggage.setEntry(ATTR_GEN_AI_CONVERSATION_ID, { value: scope }))
    .setValue(SCOPE_KEY, scope);
  return local.run(scope, () => context.with(ctx, fn));
}

/** The conversation id of a context: `withScope` (OTel context, baggage, own storage). */
function conversationOf(ctx: Context): string | undefined {
  const fromContext = ctx.getValue(SCOPE_KEY);
  if (typeof fromContext === 'string' && fromContext) return fromContext;
  const fromBaggage = propagation.getBaggage(ctx)?.getEntry(ATTR_GEN_AI_CONVERSATION_ID)?.value;
  if (fromBaggage) return fromBaggage;
  return local.getStore() || undefined;
}

/**
 * Scope resolution order: explicit scope; `gen_ai.conversation.id` from `withScope` (context or
 * baggage); the trace id of the active span (the enclosing `invoke_agent` trace); `"process"`.
 */
export function resolveScope(explicit: string | undefined, ctx: Context): ResolvedScope {
  const conversation = conversationOf(ctx);
  if (explicit) return { scope: explicit, source: 'explicit', conversation };
  if (conversation) return { scope: conversation, source: 'conversation', conversation };
  const spanContext = trace.getSpanContext(ctx);
  // a root invoke_agent span of loopguard's own leaves the scope to the adapter's run
  if (
    spanContext &&
    trace.isSpanContextValid(spanContext) &&
    spanContext.traceId !== currentAgentRun(ctx)?.rootTraceId
  ) {
    return { scope: spanContext.traceId, source: 'trace', conversation };
  }
  return { scope: 'process', source: 'process', conversation };
}

/** A `scope` option: a fixed key, or a callback computing one from a call's arguments. */
type ScopeOption<A extends unknown[]> = string | ((...args: A) => string | undefined);

/**
 * The key `options.scope` gives a call with these arguments: the fixed key, or the callback's
 * answer. A callback that throws gives none (the context decides), reported once as `what` failed.
 */
export function scopeOfOption<A extends unknown[]>(
  options: { scope?: ScopeOption<A> },
  args: A,
  what: string,
): string | undefined {
  if (typeof options.scope !== 'function') return options.scope;
  try {
    return options.scope(...args);
  } catch (error) {
    warnOnce(`loopguard: ${what} failed; using the context scope`, error);
    return undefined;
  }
}
