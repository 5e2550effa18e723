/** The OpenAI Agents SDK adapter: guarded function tools, and `tool` factory patching for `register`. */

export { AGENTS_DEFAULT_TOOL_ERROR } from './results.js';
export { guardAgentsTool, patchOpenAIAgents, unpatchOpenAIAgents } from './tool.js';
export type { AgentsGuardOptions, AgentsToolCallDetails } from './types.js';
