import type { StopDecision } from '@loopguard/engine';
import { getGuard } from '../guard.js';
import type {
  McpCallToolParamsLike,
  McpCallToolResultLike,
  McpClientLike,
  McpInstrumentOptions,
  ResultAdapter,
} from '../types.js';

type CallTool = (params: McpCallToolParamsLike, ...rest: unknown[]) => Promise<unknown>;

const PATCHED = Symbol.for('loopguard.mcp.patched');
const ORIGINAL = Symbol.for('loopguard.mcp.original');

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
      mcpResultAdapter,
    );
  };
  Object.defineProperty(wrapper, PATCHED, { value: true });
  Object.defineProperty(wrapper, ORIGINAL, { value: original });
  return wrapper;
}

function isPatched(fn: unknown): boolean {
  return typeof fn === 'function' && (fn as unknown as Record<symbol, unknown>)[PATCHED] === true;
}

/**
 * Guards one MCP `Client` instance: its `callTool` becomes a traced, loop-checked call. Returns the
 * same client; calling it twice (or on an instance of a patched class) changes nothing.
 */
export function instrumentMcpClient<C extends McpClientLike>(
  client: C,
  options: McpInstrumentOptions = {},
): C {
  const original = client.callTool as CallTool;
  if (typeof original !== 'function' || isPatched(original)) return client;
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
  Object.defineProperty(proto, 'callTool', {
    value: guarded(original, options),
    writable: true,
    configurable: true,
  });
  return true;
}

/** Undoes `patchMcpClientClass` (used when the register instrumentation is disabled). */
export function unpatchMcpClientClass(ClientClass: { prototype: unknown }): void {
  const proto = ClientClass?.prototype as Record<string, unknown> | undefined;
  const current = proto?.callTool as (CallTool & { [ORIGINAL]?: CallTool }) | undefined;
  if (!proto || !isPatched(current)) return;
  Object.defineProperty(proto, 'callTool', {
    value: current?.[ORIGINAL],
    writable: true,
    configurable: true,
  });
}
