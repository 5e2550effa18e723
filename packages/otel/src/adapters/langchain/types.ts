import type { Guard } from '../../types.js';

/** Options of `guardLangChainTool`, `loopguardMiddleware` and `patchLangChain`. */
export interface LangChainGuardOptions {
  /** Default: `getGuard()` at call time. */
  guard?: Guard;
  /**
   * Fixed scope. Default: the context scope (`withScope`); else the LangGraph `thread_id` of the
   * run; else the active trace; else one scope per agent run (`invoke`/`stream`).
   */
  scope?: string;
  /**
   * Middleware only: what a tool's own error becomes. `'message'` (default) answers with an error
   * ToolMessage as `createAgent` does when no middleware wraps tool calls; `'throw'` re-throws it
   * (langchain's behaviour once any `wrapToolCall` middleware is present).
   */
  toolErrors?: 'message' | 'throw';
}

/** The parts of a LangChain tool (`tool(...)`, `StructuredTool`) the guard uses. */
export interface LangChainToolLike {
  name: string;
  responseFormat?: string;
}
