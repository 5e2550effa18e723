import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** A real MCP server with a few tools, connected to a real client over an in-memory transport. */
export interface McpPair {
  client: Client;
  /** How often each tool handler actually ran on the server. */
  runs: Map<string, number>;
  close(): Promise<void>;
}

/** Connects `client` (default: a new SDK Client) to a fresh McpServer. */
export async function connectMcp(
  client: Client = new Client({ name: 'test-client', version: '1.0.0' }),
): Promise<McpPair> {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' });
  const runs = new Map<string, number>();
  const count = (tool: string) => {
    const n = (runs.get(tool) ?? 0) + 1;
    runs.set(tool, n);
    return n;
  };
  server.registerTool(
    'create_issue',
    { description: 'Creates an issue', inputSchema: { title: z.string() } },
    async ({ title }) => ({
      content: [{ type: 'text', text: `created #${count('create_issue')}: ${title}` }],
    }),
  );
  server.registerTool(
    'deploy',
    { description: 'Always fails', inputSchema: { env: z.string() } },
    async ({ env }) => {
      count('deploy');
      return { isError: true, content: [{ type: 'text', text: `deploy to ${env} failed` }] };
    },
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    client,
    runs,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
