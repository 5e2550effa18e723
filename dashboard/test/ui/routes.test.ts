import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hashParams,
  hrefOf,
  listOfSession,
  parseHash,
  type Route,
  sessionFromList,
} from '../../src/ui/routes.js';

describe('hash routes', () => {
  it('parse the documented routes', () => {
    expect(parseHash('')).toEqual({ page: 'overview' });
    expect(parseHash('#/overview')).toEqual({ page: 'overview' });
    expect(parseHash('#/hotspots')).toEqual({ page: 'hotspots' });
    expect(parseHash('#/sessions')).toEqual({ page: 'sessions' });
    expect(parseHash('#/sessions?signature=grep%3Aabc')).toEqual({
      page: 'sessions',
      signature: 'grep:abc',
    });
    expect(parseHash('#/sessions/team%2Frun%201')).toEqual({
      page: 'session',
      scope: 'team/run 1',
    });
    expect(parseHash('#/nowhere')).toEqual({ page: 'overview' });
  });

  it('carry the range and filters in the query, beside the route', () => {
    const href = hrefOf(
      { page: 'sessions', signature: 'grep:a&b' },
      { range: '7d', service: 'svc one', search: '' },
    );
    expect(href).toBe('#/sessions?signature=grep%3Aa%26b&range=7d&service=svc+one');
    expect(parseHash(href)).toEqual({ page: 'sessions', signature: 'grep:a&b' });
    expect(Object.fromEntries(hashParams(href))).toEqual({
      signature: 'grep:a&b',
      range: '7d',
      service: 'svc one',
    });
    expect(parseHash('#/sessions/a%2Fb?range=1h')).toEqual({ page: 'session', scope: 'a/b' });
    expect([...hashParams('#/hotspots')]).toEqual([]);
  });

  it('carry the signature list a session was opened from through the timeline route', () => {
    const opened = sessionFromList('run 1', 'grep:a&b');
    expect(opened).toEqual({ page: 'session', scope: 'run 1', signature: 'grep:a&b' });
    const href = hrefOf(opened, { service: 'svc' });
    expect(href).toBe('#/sessions/run%201?signature=grep%3Aa%26b&service=svc');
    const back = parseHash(href);
    expect(back).toEqual(opened);
    if (back.page !== 'session') throw new Error('not a session route');
    expect(listOfSession(back)).toEqual({ page: 'sessions', signature: 'grep:a&b' });
    // opened from the whole list, or a bare deep link: back to the whole list
    expect(sessionFromList('run 1')).toEqual({ page: 'session', scope: 'run 1' });
    expect(listOfSession({ page: 'session', scope: 'run 1' })).toEqual({ page: 'sessions' });
    expect(parseHash('#/sessions/run?signature=')).toEqual({ page: 'session', scope: 'run' });
  });

  it('keep a malformed escape as text instead of throwing', () => {
    expect(parseHash('#/sessions/100%')).toEqual({ page: 'session', scope: '100%' });
  });

  it('round-trip any scope or signature, whatever characters it holds', () => {
    const text = fc.string({ minLength: 1, unit: 'binary' });
    const route: fc.Arbitrary<Route> = fc.oneof(
      fc.constant<Route>({ page: 'overview' }),
      fc.constant<Route>({ page: 'hotspots' }),
      text.map((signature): Route => ({ page: 'sessions', signature })),
      text.map((scope): Route => ({ page: 'session', scope })),
      fc
        .tuple(text, text)
        .map(([scope, signature]): Route => ({ page: 'session', scope, signature })),
    );
    fc.assert(
      fc.property(route, (r) => {
        expect(parseHash(hrefOf(r))).toEqual(r);
      }),
    );
  });
});
