/** The MCP SDK adapter: guarded `Client.callTool`, per instance or patched on the class for `register`. */

export {
  instrumentMcpClient,
  mcpResultAdapter,
  patchMcpClientClass,
  unpatchMcpClientClass,
} from './client.js';
export type {
  McpCallToolParamsLike,
  McpCallToolResultLike,
  McpClientLike,
  McpInstrumentOptions,
} from './types.js';
