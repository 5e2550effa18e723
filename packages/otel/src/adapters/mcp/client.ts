import { randomUUID } from 'node:crypto';
import type { StopDecision } from '@loopguard/engine';
import { context, trace } from '@opentelemetry/api';
import { type AgentRun, inAgentRun } from '../../agent-run.js';
import { getGuard } from '../../guard.js';
import type { Guard, ResultAdapter } from '../../types.js';
import { cancellableBy, openAgentRun, runScopeUnlessContext } from '../shared/index.js';
import type {
  McpCallToolParamsLike,
  McpCallToolResultLike,
  McpClientLike,
  McpInstrumentOptions,
} from './types.js';

type CallTool = (params: McpCallToolParamsLike, ...rest: unknown[]) => Promise<unknown>;

const PATCHED = Symbol.for('loopguard.mcp.patched');
const ORIGINAL = Symbol.for('loopguard.mcp.original');
/** Marks the `callTool` that `patchMcpClientClass` put on the class prototype. */
const CLASS_PATCH = Symbol.for('loopguard.mcp.class-patch');

/** MCP results: blocked = `isError` with the reason as text; a notice = one extra text item. */
export const mcpResultAdapter: ResultAdapter<McpCallToolResultLike> = {
  blocked(decision: StopDecision) {
    return { isError: true, content: [{ type: 'text', text: decision.message }] };
  },
  appendNotice(result, notice) {
    const content = Array.isArray(result.content) ? result.content : [];
    return { ...result, content: [...content, { type: 'text', text: notice }] };
  },
  isError(result) {
    return result.isError === true;
  },
  forHash(result) {
    return { content: result.content, structuredContent: result.structuredContent };
  },
};

/** One client's session: its own scope and, once it calls a tool outside any span, its run span. */
interface Session {
  readonly scope: string;
  run?: AgentRun;
}

const sessions = new WeakMap<object, Session>();

function sessionOf(client: unknown): Session | undefined {
  if (typeof client !== 'object' || client === null) return undefined;
  let session = sessions.get(client);
  if (!session) {
    session = { scope: `mcp:${randomUUID()}` };
    sessions.set(client, session);
  }
  return session;
}

/** The client's name as it introduced itself to the server (`clientInfo.name`), if readable. */
function clientNameOf(client: unknown): string | undefined {
  const info = (client as { _clientInfo?: { name?: unknown } } | null)?._clientInfo;
  return typeof info?.name === 'string' && info.name ? info.name : undefined;
}

/**
 * The session's run span, opened at its first call made outside any span (calls inside a span of
 * the host's nest under that span instead); ended by `close()`.
 */
function sessionRun(session: Session, client: unknown, guard: Guard): AgentRun | undefined {
  if (trace.getSpan(context.active())) return undefined;
  if (!session.run) {
    const agentName = clientNameOf(client);
    session.run = openAgentRun(guard, agentName ? { agentName } : {});
  }
  return session.run;
}

/** Ends the run span of `client`'s session, if it has one; the next call opens a new one. */
export function endMcpSession(client: unknown): void {
  if (typeof client !== 'object' || client === null) return;
  const session = sessions.get(client);
  session?.run?.end();
  sessions.delete(client);
}

function guarded(original: CallTool, options: McpInstrumentOptions): CallTool {
  const wrapper = function callTool(
    this: unknown,
    params: McpCallToolParamsLike,
    ...rest: unknown[]
  ): Promise<unknown> {
    if (typeof params?.name !== 'string') return original.call(this, params, ...rest);
    const guard = options.guard ?? getGuard();
    const session = sessionOf(this);
    const run = session ? sessionRun(session, this, guard) : undefined;
    return inAgentRun(run, () =>
      guard.traceToolCall(
        {
          tool: params.name,
          args: params.arguments ?? {},
          // no scope of the option's or the context's: the client's own, never the shared "process"
          scope:
            options.scope ??
            (session ? runScopeUnlessContext(() => session.scope, 'MCP') : undefined),
          toolType: 'extension',
        },
        () => original.call(this, params, ...rest) as Promise<McpCallToolResultLike>,
        cancellableBy(mcpResultAdapter, (rest[1] as { signal?: unknown } | undefined)?.signal),
      ),
    );
  };
  Object.defineProperty(wrapper, PATCHED, { value: true });
  Object.defineProperty(wrapper, ORIGINAL, { value: original });
  return wrapper;
}

function isPatched(fn: unknown): boolean {
  return typeof fn === 'function' && (fn as unknown as Record<symbol, unknown>)[PATCHED] === true;
}

type Marked = CallTool & { [ORIGINAL]?: CallTool; [CLASS_PATCH]?: boolean };

/**
 * Guards one MCP `Client` instance: its `callTool` becomes a traced, loop-checked call. Returns the
 * same client; calling it twice changes nothing. On an instance of a class patched by `register`,
 * explicit options (`guard`, `scope`) guard the instance's calls with them instead (once).
 */
export function instrumentMcpClient<C extends McpClientLike>(
  client: C,
  options: McpInstrumentOptions = {},
): C {
  let original = client.callTool as Marked;
  if (typeof original !== 'function') return client;
  if (isPatched(original)) {
    const explicit = options.guard !== undefined || options.scope !== undefined;
    const unpatched = original[ORIGINAL];
    if (!original[CLASS_PATCH] || !explicit || typeof unpatched !== 'function') return client;
    original = unpatched;
  }
  Object.defineProperty(client, 'callTool', {
    value: guarded(original, options),
    writable: true,
    configurable: true,
  });
  const close = (client as { close?: unknown }).close;
  if (typeof close === 'function' && !isPatched(close)) {
    Object.defineProperty(client, 'close', {
      value: closing(close as Close),
      writable: true,
      configurable: true,
    });
  }
  return client;
}

type Close = (this: unknown, ...args: unknown[]) => unknown;

/** `close` that also ends the client session's run span. */
function closing(original: Close): Close {
  const wrapper = function close(this: unknown, ...args: unknown[]) {
    endMcpSession(this);
    return original.apply(this, args);
  };
  Object.defineProperty(wrapper, PATCHED, { value: true });
  Object.defineProperty(wrapper, ORIGINAL, { value: original });
  return wrapper;
}

/**
 * Patches `callTool` on the prototype of the MCP SDK's `Client` class (used by `register`);
 * idempotent. Returns false when the class has no `callTool` to patch.
 */
export function patchMcpClientClass(
  ClientClass: { prototype: unknown },
  options: McpInstrumentOptions = {},
): boolean {
  const proto = ClientClass?.prototype as McpClientLike | undefined;
  const original = proto?.callTool as CallTool | undefined;
  if (!proto || typeof original !== 'function') return false;
  if (isPatched(original)) return true;
  const wrapper = guarded(original, options);
  Object.defineProperty(wrapper, CLASS_PATCH, { value: true });
  Object.defineProperty(proto, 'callTool', {
    value: wrapper,
    writable: true,
    configurable: true,
  });
  const close = (proto as { close?: unknown }).close;
  if (typeof close === 'function' && !isPatched(close)) {
    Object.defineProperty(proto, 'close', {
      value: closing(close as Close),
      writable: true,
      configurable: true,
    });
  }
  return true;
}

/** Undoes `patchMcpClientClass` (used when the register instrumentation is disabled). */
export function unpatchMcpClientClass(ClientClass: { prototype: unknown }): void {
  const proto = ClientClass?.prototype as Record<string, unknown> | undefined;
  if (!proto) return;
  for (const key of ['callTool', 'close']) {
    const current = proto[key] as Marked | undefined;
    if (!isPatched(current)) continue;
    Object.defineProperty(proto, key, {
      value: current?.[ORIGINAL],
      writable: true,
      configurable: true,
    });
  }
}
