/**
 * The bytes of request bodies held in memory by the ingest requests in flight. A request may
 * take more while the total stays under `max`, and always while it is the only holder, so a
 * request under the body size limit is never refused forever.
 */
export class ByteBudget {
  private held = 0;

  constructor(readonly max: number) {}

  /** Adds `n` bytes to a request that already holds `mine`; false (nothing taken) when over. */
  take(n: number, mine: number): boolean {
    if (this.held + n > this.max && this.held > mine) return false;
    this.held += n;
    return true;
  }

  /** Returns what a request held, when it is done. */
  release(n: number): void {
    this.held -= n;
  }
}
