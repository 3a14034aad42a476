import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { probe } from '../src/services/probe.js';

/** A read whose answers the test gives one at a time, in order. */
function controlledRead() {
  const pending: Array<{ resolve: (v: number) => void; reject: (e: Error) => void }> = [];
  let calls = 0;
  const read = () => {
    calls += 1;
    return new Promise<number>((resolve, reject) => pending.push({ resolve, reject }));
  };
  const settled = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return {
    read,
    answer: async (v: number) => (pending.shift()!.resolve(v), settled()),
    fail: async () => (pending.shift()!.reject(new Error('connection refused')), settled()),
    calls: () => calls,
  };
}

const opts = { intervalMs: 1000, answerWithinMs: 2000 };

/** A probe on a controlled read whose first read has answered 3. */
async function answeredOnce() {
  const clock = new ManualClock();
  const r = controlledRead();
  const check = probe(r.read, clock, opts);
  const first = check();
  await r.answer(3);
  await first;
  return { clock, r, check };
}

describe('probe', () => {
  it('answers the first read, then from memory, reading at most once per interval', async () => {
    const clock = new ManualClock();
    const r = controlledRead();
    const check = probe(r.read, clock, opts);
    const first = check();
    await r.answer(3);
    expect(await first).toEqual({ ok: true, value: 3 });
    for (let i = 0; i < 10; i++) expect(await check()).toEqual({ ok: true, value: 3 });
    expect(r.calls()).toBe(1);
    clock.advance(1000);
    expect(await check()).toEqual({ ok: true, value: 3 });
    expect(await check()).toEqual({ ok: true, value: 3 });
    expect(r.calls()).toBe(2);
    await r.answer(4);
    expect(await check()).toEqual({ ok: true, value: 4 });
  });

  it('is not ok at once when a read fails, retries once an interval, and is ok with the next success', async () => {
    const { clock, r, check } = await answeredOnce();
    clock.advance(1000);
    await check();
    await r.fail();
    expect(await check()).toMatchObject({ ok: false, error: { message: 'connection refused' } });
    // A failing database is not read more than once a second, however often the probe is asked.
    for (let i = 0; i < 10; i++) expect(await check()).toMatchObject({ ok: false });
    expect(r.calls()).toBe(2);
    clock.advance(1000);
    expect(await check()).toMatchObject({ ok: false });
    expect(r.calls()).toBe(3);
    await r.answer(5);
    expect(await check()).toEqual({ ok: true, value: 5 });
  });

  it('is not ok once a read has had no answer for the bound, and never starts a second one meanwhile', async () => {
    const { clock, r, check } = await answeredOnce();
    clock.advance(1000);
    expect(await check()).toEqual({ ok: true, value: 3 });
    clock.advance(1999);
    expect(await check()).toEqual({ ok: true, value: 3 });
    clock.advance(1);
    expect(await check()).toMatchObject({ ok: false });
    clock.advance(60_000);
    expect(await check()).toMatchObject({ ok: false });
    expect(r.calls()).toBe(2);
    // The hung read gives up at last (the driver's timeout); the next one, started at once, finds it back.
    await r.fail();
    const next = check();
    await r.answer(6);
    expect(await next).toEqual({ ok: true, value: 6 });
  });

  it('answers the first poll within the bound when the first read does not answer', async () => {
    const clock = new ManualClock();
    const check = probe(() => new Promise<number>(() => undefined), clock, { intervalMs: 1000, answerWithinMs: 20 });
    expect(await check()).toMatchObject({ ok: false });
  });

  it("polled seldom (a balancer every 30 s), answers from the read its poll starts, not the last poll's", async () => {
    // It answered from the read the previous poll had started: 200 for a whole interval into an outage, 503 for a
    // whole interval after it.
    const { clock, r, check } = await answeredOnce();
    clock.advance(30_000);
    const down = check();
    await r.fail();
    expect(await down).toMatchObject({ ok: false });
    clock.advance(30_000);
    const up = check();
    await r.answer(4);
    expect(await up).toEqual({ ok: true, value: 4 });
  });
});
