import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Runner, tool } from '@openai/agents';
import { generateText, streamText, ToolLoopAgent } from 'ai';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { LoopguardInstrumentation } from '../src/index.js';

type Definition = {
  name: string;
  patch?: (exports: unknown) => unknown;
  unpatch?: (exports: unknown) => void;
  files: { patch: (exports: unknown) => unknown; unpatch: (exports: unknown) => void }[];
};

/** The instrumentation's module definitions, by module name (what the require/import hooks call). */
function definitions(): Map<string, Definition> {
  const instrumentation = new LoopguardInstrumentation({ enabled: false });
  const defs = instrumentation.getModuleDefinitions() as unknown as Definition[];
  return new Map(defs.map((d) => [d.name, d]));
}

describe('LoopguardInstrumentation disable()', () => {
  it('unpatches every framework module it patched, not only MCP', () => {
    const defs = definitions();
    const modules: [string, Record<string, unknown>, string[]][] = [
      [
        'ai',
        { generateText, streamText, ToolLoopAgent },
        ['generateText', 'streamText', 'ToolLoopAgent'],
      ],
      ['@openai/agents', { tool, Runner }, ['tool']],
      ['langchain', { createAgent }, ['createAgent']],
    ];
    for (const [name, mod, keys] of modules) {
      const def = defs.get(name);
      if (!def?.patch || !def.unpatch) throw new Error(`${name} has no patch/unpatch`);
      const originals = keys.map((k) => mod[k]);
      const runBefore = Runner.prototype.run;
      const patched = def.patch(mod) as Record<string, unknown>;
      expect(keys.map((k) => patched[k])).not.toEqual(originals);
      if (name === '@openai/agents') expect(Runner.prototype.run).not.toBe(runBefore);
      def.unpatch(patched);
      expect(keys.map((k) => patched[k])).toEqual(originals);
      expect(Runner.prototype.run).toBe(runBefore);
    }
  });

  it('unpatches the CommonJS copy of the AI SDK it handed out', () => {
    const cjs = createRequire(import.meta.url)('ai') as Record<string, unknown>;
    const def = definitions().get('ai');
    const copy = def?.patch?.(cjs) as Record<string, unknown>;
    expect(copy.generateText).not.toBe(cjs.generateText);
    def?.unpatch?.(copy);
    expect(copy.generateText).toBe(cjs.generateText);
  });

  it('unpatches the MCP client class, close included', () => {
    const def = definitions().get('@modelcontextprotocol/sdk');
    const file = def?.files[0];
    const { callTool, close } = Client.prototype;
    file?.patch({ Client });
    expect(Client.prototype.callTool).not.toBe(callTool);
    expect(Client.prototype.close).not.toBe(close);
    file?.unpatch({ Client });
    expect(Client.prototype.callTool).toBe(callTool);
    expect(Client.prototype.close).toBe(close);
  });
});
