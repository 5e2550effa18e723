import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { loopguardMiddleware } from '../src/adapters/langchain/index.js';
import { ask, grepArgs, langChainTelemetry, loopingModel, makeGrep } from './helpers/langchain.js';

const { exporter, guardWith, spansOf } = langChainTelemetry();
afterEach(() => exporter.reset());

describe('LangChain capture', () => {
  it('records the tool message content as the result, not the serialized message', async () => {
    const guard = guardWith({ capture: true });
    const agent = createAgent({
      model: loopingModel('grep', grepArgs, 1),
      tools: [makeGrep()],
      middleware: [loopguardMiddleware({ guard })],
    });
    await agent.invoke(ask, { recursionLimit: 10 });
    const [span] = spansOf('grep');
    expect(span?.attributes['gen_ai.tool.call.result']).toBe('src/a.ts:1: TODO fix me');
  });
});
