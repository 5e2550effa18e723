/** The body of `/healthz` while inserts fail (answered with a 503). */
export interface UnhealthyBody {
  status: 'unavailable';
  reason: string;
  /** Epoch ms of the first failed insert since the last one that committed. */
  failingSince: number;
}

/**
 * Whether the last insert into the store committed, for `/healthz`: a failed insert marks the
 * dashboard unhealthy, the next one that commits clears it. The cause is logged, not kept here
 * (`/healthz` is open without a token).
 */
export class InsertHealth {
  private failingSince: number | undefined;

  /** Records a failed insert; the first of a run of failures dates it. */
  failed(now = Date.now()): void {
    this.failingSince ??= now;
  }

  /** Records an insert that committed. */
  committed(): void {
    this.failingSince = undefined;
  }

  /** What `/healthz` answers with a 503, or undefined when the last insert committed (or none ran). */
  unhealthy(): UnhealthyBody | undefined {
    if (this.failingSince === undefined) return undefined;
    return {
      status: 'unavailable',
      reason: 'the store failed to commit the last insert (the server log has the cause)',
      failingSince: this.failingSince,
    };
  }
}
