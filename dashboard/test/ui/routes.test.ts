import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hrefOf, parseHash, type Route } from '../../src/ui/routes.js';

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
    );
    fc.assert(
      fc.property(route, (r) => {
        expect(parseHash(hrefOf(r))).toEqual(r);
      }),
    );
  });
});
