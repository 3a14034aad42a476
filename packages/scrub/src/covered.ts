import { isGenericType } from './redact.js';
import type { Finding } from './types.js';

/**
 * Findings made so far, to pass over a later one that cannot change the redaction: one lying inside an earlier
 * finding that starts where it does, when that one is of a specific type or the later one of a generic type.
 * `mergeFindings` names a region after its first finding of the highest rank, and the earlier finding comes first
 * and ranks as high (it is at least as long, in decoded or original offsets alike); nor can the later one widen the
 * region. Keyed on the start only, so a lookup is cheap: it catches what dense text is full of, the same value
 * found again by another rule or pass.
 */
export class Covered {
  /** Start -> the furthest end of a finding starting there, of any type and of a specific type. */
  private readonly any = new Map<number, number>();
  private readonly specific = new Map<number, number>();

  constructor(findings: Iterable<Finding> = []) {
    this.add(findings);
  }

  /** Findings that come, in the list given to `redact`, before those checked against them from now on. */
  add(findings: Iterable<Finding>): void {
    for (const f of findings) {
      if ((this.any.get(f.start) ?? -1) < f.end) this.any.set(f.start, f.end);
      if (!isGenericType(f.type) && (this.specific.get(f.start) ?? -1) < f.end) this.specific.set(f.start, f.end);
    }
  }

  /** Whether a finding of `type` over [start, end) would change nothing. */
  readonly covers: Redundancy = (type, start, end) =>
    ((isGenericType(type) ? this.any : this.specific).get(start) ?? -1) >= end;
}

/** Whether a finding of `type` over [start, end) would change nothing, given the findings before it. */
export type Redundancy = (type: string, start: number, end: number) => boolean;
