/** The Vercel AI SDK adapter: guarded tools, a halt stop condition, and module patching for `register`. */

export { loopHalted } from './ai-sdk-halt.js';
export { guardedAiSdkExports, patchAiSdk } from './ai-sdk-patch.js';
export { guardAiSdkTools, ToolCallBlockedError } from './ai-sdk-tools.js';
