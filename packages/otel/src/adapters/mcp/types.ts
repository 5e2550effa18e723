import type { Guard } from '../../types.js';

/** The parts of an MCP `CallToolResult` loopguard reads or adds to. */
export interface McpCallToolResultLike {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/** `tools/call` params as the MCP SDK's `Client.callTool` takes them. */
export interface McpCallToolParamsLike {
  name: string;
  arguments?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Anything with the MCP SDK Client's `callTool` method. */
export interface McpClientLike {
  callTool(params: McpCallToolParamsLike, ...rest: never[]): Promise<unknown>;
}

/** Options of `instrumentMcpClient` and `patchMcpClientClass`. */
export interface McpInstrumentOptions {
  /** Default: `getGuard()` at call time. */
  guard?: Guard;
  /** Fixed scope for every call of this client; default: resolved from context. */
  scope?: string;
}
