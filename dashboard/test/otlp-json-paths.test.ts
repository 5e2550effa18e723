import { describe, expect, it } from 'vitest';
import { decodeJsonRequest } from '../src/otlp/index.js';

// The JSON decoder joins a field's path only when it reports the field: the messages must be
// the ones it gave when it built every path up front (taken from that version).

const span = (over: Record<string, unknown>) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 's' } }] },
      scopeSpans: [
        {
          scope: { name: 'n' },
          spans: [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 'x', ...over }],
        },
      ],
    },
  ],
});

const S = 'resourceSpans[0].scopeSpans[0].spans[0]';
const CASES: [string, unknown, string][] = [
  [
    'attribute key',
    span({ attributes: [{ key: 'a', value: { stringValue: 'b' } }, { key: 5 }] }),
    `${S}.attributes[1].key: expected a string`,
  ],
  [
    'attribute not an object',
    span({ attributes: [{ key: 'a' }, 'x'] }),
    `${S}.attributes[1]: expected an object`,
  ],
  [
    'bool value',
    span({ attributes: [{ key: 'a', value: { boolValue: 'yes' } }] }),
    `${S}.attributes[0].value.boolValue: expected a boolean`,
  ],
  [
    'snake_case int value',
    span({ attributes: [{ key: 'a', value: { int_value: '1.5' } }] }),
    `${S}.attributes[0].value.int_value: expected an integer (number or decimal string)`,
  ],
  [
    'double in a kvlist in an array',
    span({
      attributes: [
        {
          key: 'a',
          value: {
            arrayValue: {
              values: [
                { stringValue: 'x' },
                { kvlistValue: { values: [{ key: 'k', value: { doubleValue: 'x' } }] } },
              ],
            },
          },
        },
      ],
    }),
    `${S}.attributes[0].value.arrayValue.values[1].kvlistValue.values[0].value.doubleValue: expected a number`,
  ],
  [
    'kvlist entry key',
    span({ attributes: [{ key: 'a', value: { kvlistValue: { values: [{ key: [] }] } } }] }),
    `${S}.attributes[0].value.kvlistValue.values[0].key: expected a string`,
  ],
  [
    'event attribute value',
    span({ events: [{ name: 'e' }, { attributes: [{ key: 'k', value: 3 }] }] }),
    `${S}.events[1].attributes[0].value: expected an object`,
  ],
  [
    'link trace id',
    span({ links: [{ traceId: 'xyz' }] }),
    `${S}.links[0].traceId: expected a hex-encoded id`,
  ],
  ['status code', span({ status: { code: 'BAD' } }), `${S}.status.code: expected an enum number`],
  [
    'start time',
    span({ startTimeUnixNano: '-5' }),
    `${S}.startTimeUnixNano: expected an unsigned integer (number or decimal string)`,
  ],
  [
    'resource attribute',
    {
      resourceSpans: [
        { resource: { attributes: [{ key: 'service.name', value: { stringValue: 1 } }] } },
      ],
    },
    'resourceSpans[0].resource.attributes[0].value.stringValue: expected a string',
  ],
  [
    'scope version',
    { resourceSpans: [{ scopeSpans: [{}, { scope: { version: 2 } }] }] },
    'resourceSpans[0].scopeSpans[1].scope.version: expected a string',
  ],
];

describe('OTLP/JSON decoder errors', () => {
  for (const [label, body, message] of CASES) {
    it(`name the path of a bad ${label}`, () => {
      expect(() => decodeJsonRequest(body)).toThrow(message);
    });
  }
});
