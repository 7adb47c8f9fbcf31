/** The service's notion of "now", injectable so that tests and fixtures can fix it. */
export interface Clock {
  nowNs(): bigint;
}

export const systemClock: Clock = {
  nowNs: () => BigInt(Date.now()) * 1_000_000n,
};

/** A clock that can be pinned to an instant and released again (tests, fixtures' `fakeTime`). */
export class SettableClock implements Clock {
  private fixed: bigint | null = null;

  nowNs(): bigint {
    return this.fixed ?? systemClock.nowNs();
  }

  set(ns: bigint | null): void {
    this.fixed = ns;
  }
}
