import type { StopDecision } from '@loopguard/engine';
import { getGuard } from '../../guard.js';
import type { ResultAdapter } from '../../types.js';
import { cancellableBy } from '../shared/index.js';
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

function guarded(original: CallTool, options: McpInstrumentOptions): CallTool {
  const wrapper = function callTool(
    this: unknown,
    params: McpCallToolParamsLike,
    ...rest: unknown[]
  ): Promise<unknown> {
    if (typeof params?.name !== 'string') return original.call(this, params, ...rest);
    const guard = options.guard ?? getGuard();
    return guard.traceToolCall(
      {
        tool: params.name,
        args: params.arguments ?? {},
        scope: options.scope,
        toolType: 'extension',
      },
      () => original.call(this, params, ...rest) as Promise<McpCallToolResultLike>,
      cancellableBy(mcpResultAdapter, (rest[1] as { signal?: unknown } | undefined)?.signal),
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
  return client;
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
  return true;
}

/** Undoes `patchMcpClientClass` (used when the register instrumentation is disabled). */
export function unpatchMcpClientClass(ClientClass: { prototype: unknown }): void {
  const proto = ClientClass?.prototype as Record<string, unknown> | undefined;
  const current = proto?.callTool as Marked | undefined;
  if (!proto || !isPatched(current)) return;
  Object.defineProperty(proto, 'callTool', {
    value: current?.[ORIGINAL],
    writable: true,
    configurable: true,
  });
}
