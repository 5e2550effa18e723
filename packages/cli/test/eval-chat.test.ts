import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type EvalReport, readChatTranscript } from '../src/eval/index.js';
import { evaluate, folder, jsonl } from './eval-fixtures.js';

const call = (id: string, name: string, args: string) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
});
const answer = (id: string, content: unknown, extra: object = {}) => ({
  role: 'tool',
  tool_call_id: id,
  content,
  ...extra,
});

describe('chat transcripts (OpenAI messages shape)', () => {
  it('reads one conversation per file: calls in order, their results, failures and new turns', () => {
    const conversation = {
      id: 'conv-7',
      messages: [
        { role: 'system', content: 'You book flights.' },
        { role: 'user', content: 'Book me a flight.' },
        {
          role: 'assistant',
          content: 'Two lookups at once.',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'get_user', arguments: '{"id":"u1"}' } },
            { id: 'b', type: 'function', function: { name: 'search', arguments: { to: 'SEA' } } },
          ],
        },
        // answers may come in any order; a list of text parts is joined
        answer('b', [
          { type: 'text', text: 'HAT069' },
          { type: 'text', text: ', HAT070' },
        ]),
        answer('a', '{"name":"Mia"}'),
        { role: 'assistant', content: 'Which one?' },
        { role: 'user', content: 'The first.' },
        call('c', 'book', '{"flight":"HAT069"}'),
        answer('c', 'Error: payment method not found'),
        call('d', 'book', '{"flight":"HAT069"}'),
        answer('d', 'declined', { is_error: true }),
        { role: 'user', content: 'Thanks.' },
        call('e', 'book', '{"flight":"HAT070"}'),
      ],
    };
    const read = readChatTranscript(JSON.stringify(conversation, null, 2), 'trip', false);
    expect(read.errors).toEqual([]);
    expect(read.runs).toEqual([
      {
        scope: 'conv-7',
        steps: [
          {
            where: ': messages[2].tool_calls[0]',
            line: {
              scope: 'conv-7',
              tool: 'get_user',
              args: '{"id":"u1"}',
              result: '{"name":"Mia"}',
              ok: true,
            },
          },
          {
            where: ': messages[2].tool_calls[1]',
            line: {
              scope: 'conv-7',
              tool: 'search',
              args: { to: 'SEA' },
              result: 'HAT069, HAT070',
              ok: true,
            },
          },
          // the user's second message: a new turn, as a host resets the scope
          { where: ': messages[6]', line: { reset: 'conv-7' } },
          {
            where: ': messages[7].tool_calls[0]',
            line: {
              scope: 'conv-7',
              tool: 'book',
              args: '{"flight":"HAT069"}',
              result: 'Error: payment method not found',
              ok: false,
            },
          },
          {
            where: ': messages[9].tool_calls[0]',
            line: {
              scope: 'conv-7',
              tool: 'book',
              args: '{"flight":"HAT069"}',
              result: 'declined',
              ok: false,
            },
          },
          { where: ': messages[11]', line: { reset: 'conv-7' } },
          // never answered: a call without a result
          {
            where: ': messages[12].tool_calls[0]',
            line: { scope: 'conv-7', tool: 'book', args: '{"flight":"HAT070"}' },
          },
        ],
      },
    ]);
    // a bare array of messages is a conversation too, named after the file
    const bare = readChatTranscript(
      JSON.stringify(conversation.messages.slice(0, 5)),
      'trip',
      false,
    );
    expect(bare.runs.map((r) => [r.scope, r.steps.length])).toEqual([['trip', 2]]);
  });

  it('reads one conversation per line, naming unnamed ones file:line and each bad line', () => {
    const text = [
      JSON.stringify({ messages: [call('a', 'ls', '{}'), answer('a', 'x')] }),
      '',
      JSON.stringify({ scope: 'named', messages: [call('a', 'ls', '{}'), answer('zz', 'x')] }),
      '{"messages": [',
      JSON.stringify({
        messages: [{ content: 'no role' }, { role: 'assistant', tool_calls: [{ id: 'q' }] }],
      }),
      JSON.stringify({ prompt: 'not a conversation' }),
    ].join('\n');
    const read = readChatTranscript(text, 'logs', true);
    expect(read.runs.map((r) => [r.scope, r.steps.map((s) => s.where)])).toEqual([
      ['logs:1', [':1, messages[0].tool_calls[0]']],
      ['named', [':3, messages[0].tool_calls[0]']],
      ['logs:5', []],
    ]);
    expect(read.errors).toEqual([
      {
        where: ':3, messages[1]',
        message: 'a tool message answering no earlier tool call (tool_call_id "zz")',
      },
      { where: ':4', message: expect.stringMatching(/^not valid JSON/) },
      { where: ':5, messages[0]', message: 'expected a message: an object with "role"' },
      {
        where: ':5, messages[1].tool_calls[0]',
        message: 'expected {"id", "function": {"name", "arguments"}} with a tool name',
      },
      {
        where: ':6',
        message: 'expected a conversation: {"messages": [...]} or an array of messages',
      },
    ]);
  });

  it('loopguard eval recognises chat files, one conversation per file or per line', async () => {
    // the same lookup 5 times with the same answer: Gemini CLI's rule stops the 5th
    const looping = {
      messages: [1, 2, 3, 4, 5].flatMap((n) => [
        call(`c${n}`, 'lookup', '{"q":1}'),
        answer(`c${n}`, 'none'),
      ]),
    };
    const healthy = { messages: [call('c1', 'lookup', '{"q":1}'), answer('c1', 'found')] };
    const dir = folder({
      'many.jsonl': jsonl([healthy, looping]),
      'one.json': JSON.stringify(looping, null, 2),
      'labels.json': JSON.stringify({
        labels: {
          'many:1': { label: 'healthy' },
          'many:2': { label: 'stuck', onset: 2 },
          one: { label: 'stuck', onset: 2 },
        },
      }),
    });
    const r = await evaluate({ inputs: [dir], labels: join(dir, 'labels.json'), json: true });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as EvalReport;
    expect(report.inputs).toMatchObject({ files: 2, runs: 3, evaluated: 3 });
    const gemini = report.groups[0]!.detectors['gemini-cli']!;
    expect(gemini.stuck).toMatchObject({ stopped: { count: 2, of: 2 }, firstStopVsOnset: 3 });
    expect(gemini.healthy.stopped.count).toBe(0);
    // --format replay reads every file as replay lines, whatever it looks like
    const forced = await evaluate({
      inputs: [join(dir, 'many.jsonl')],
      labels: join(dir, 'labels.json'),
      format: 'replay',
      json: true,
    });
    expect(forced.code).toBe(2);
    expect(forced.stderr).toMatch(/many\.jsonl:1: unknown key "messages"/);
  });
});
