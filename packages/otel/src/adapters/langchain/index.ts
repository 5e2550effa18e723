/** The LangChain.js adapter: agent middleware, guarded tools, and `createAgent` patching for `register`. */

export { loopguardMiddleware, patchLangChain, unpatchLangChain } from './middleware.js';
export { guardLangChainTool } from './tool.js';
export type { LangChainGuardOptions, LangChainToolLike } from './types.js';
