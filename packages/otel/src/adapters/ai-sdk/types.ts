import type { ToolExecutionOptions } from 'ai';
import type { Guard } from '../../types.js';

/** Options of `guardAiSdkTools`. */
export interface AiSdkGuardOptions {
  /** Default: `getGuard()` at call time. */
  guard?: Guard;
  /**
   * Fixed scope, or one computed per call (e.g. from `experimental_context`). Default: the context
   * scope (`withScope`, active span); when there is none, one scope per `generateText` /
   * `streamText` call or agent `generate` / `stream` call of the patched SDK (`register`).
   */
  scope?: string | ((toolName: string, options: ToolExecutionOptions) => string | undefined);
}
