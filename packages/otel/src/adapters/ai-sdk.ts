/** The Vercel AI SDK adapter: guarded tools, a halt stop condition, and module patching for `register`. */

export { guardedAiSdkExports, patchAiSdk } from './ai-sdk-patch.js';
export { guardAiSdkTools, loopHalted, ToolCallBlockedError } from './ai-sdk-tools.js';
