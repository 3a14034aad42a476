import { describe, expect, it } from 'vitest';
import { staleWhileRevalidate } from '../src/services/stale-while-revalidate.js';
import { ManualClock } from '../src/clock.js';

/** A load whose answers the test releases one at a time. */
function controlledLoad() {
  const pending: Array<(v: number) => void> = [];
  let calls = 0;
  const load = () => {
    calls += 1;
    return new Promise<number>((resolve) => pending.push(resolve));
  };
  return { load, release: (v: number) => pending.shift()!(v), calls: () => calls };
}

describe('staleWhileRevalidate', () => {
  it('waits for the first load, then answers from memory until the value is ttl old', async () => {
    const clock = new ManualClock();
    const c = controlledLoad();
    const get = staleWhileRevalidate(c.load, 1000, clock);
    const first = get();
    c.release(1);
    expect(await first).toBe(1);
    clock.advance(999);
    expect(await get()).toBe(1);
    expect(c.calls()).toBe(1);
    clock.advance(1);
    expect(await get()).toBe(1);
    expect(await get()).toBe(1);
    expect(c.calls()).toBe(2);
    c.release(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(await get()).toBe(2);
  });

  it('dates a value from when its load started, so a load that outlasts the ttl is refreshed at the next call', async () => {
    const clock = new ManualClock();
    const c = controlledLoad();
    const get = staleWhileRevalidate(c.load, 1000, clock);
    const first = get();
    c.release(0);
    await first;
    clock.advance(1000);
    await get(); // starts a refresh that reads the state of this moment
    clock.advance(1000);
    c.release(0); // it finishes a second later, with what was true when it started
    await new Promise((r) => setImmediate(r));
    await get(); // so this call finds it stale and loads again
    expect(c.calls()).toBe(3);
    c.release(5);
    await new Promise((r) => setImmediate(r));
    expect(await get()).toBe(5);
  });

  it('shares one load between concurrent calls and retries after a failed refresh', async () => {
    const clock = new ManualClock();
    let n = 0;
    const get = staleWhileRevalidate(
      async () => {
        n += 1;
        if (n === 2) throw new Error('down');
        return n;
      },
      1000,
      clock,
    );
    expect(await Promise.all([get(), get()])).toEqual([1, 1]);
    clock.advance(1000);
    expect(await get()).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(await get()).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(await get()).toBe(3);
  });
});
