/** The Vercel AI SDK adapter: guarded tools, a halt stop condition, and module patching for `register`. */

export { loopHalted } from './halt.js';
export { guardedAiSdkExports, patchAiSdk, unpatchAiSdk } from './patch.js';
export { guardAiSdkTools, ToolCallBlockedError } from './tools.js';
export type { AiSdkGuardOptions } from './types.js';
