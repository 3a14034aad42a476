/**
 * Time that decides anything (windows, expiry, schedules) comes from here so tests can move it; only bounded waits on
 * the network (polling for a receipt) run on the wall clock.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand (15 minutes, 24 hours, 7 days...) instead of sleeping. */
export class ManualClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}
