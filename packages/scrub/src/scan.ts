import { Covered, type Redundancy } from './covered.js';
import { type AnchorOptions, applyRules, type Rule } from './engine.js';
import { type NumberStarts, numberStarts } from './number-starts.js';
import { tokenRuns, vendorTokenStarts } from './tokens.js';
import type { Finding } from './types.js';

/** A name for the literals of some rules, found in one pass and read again by another (see `Scan.apply`). */
export type LiteralsName = 'key words' | 'home directories';

/** How `Scan.apply` tries a list of rules; without `at` or `literals`, over the whole text. */
export interface ApplyOptions {
  /** Ascending positions holding every position where a match of the rules may start. */
  at?: readonly number[];
  /**
   * The rules' literals go by this name: where the scan was given their positions, the rules are tried there only;
   * otherwise the positions found are kept under it, for `literalPositions`.
   */
  literals?: LiteralsName;
  /** Pass over a match that the findings before it account for (`Covered`). */
  skipCovered?: boolean;
}

/**
 * A text being scanned and what the fast paths know about it, which is all that rule families see: positions
 * found in one pass each (token runs, vendor token starts, number starts), computed when first asked for and
 * shared by every family that reads them; the findings so far, so a later rule can pass over a value they
 * account for; and where the literals of some rules were found, so a second pass over part of the text reads
 * them there instead of searching again.
 */
export class Scan {
  private runs?: number[];
  private vendorStarts?: number[];
  private numbers?: NumberStarts;
  private readonly found: Finding[] = [];
  private covered?: Covered;
  /** How many of `found` are in `covered`: findings are added only when a rule asks, and then all at once. */
  private coveredUpTo = 0;
  private readonly literalsSeen = new Map<LiteralsName, number[]>();

  /**
   * `coveredBefore` tells what findings made before this scan (in the list given to `redact`) account for;
   * `literalsAt` gives the positions of named literals, found by an earlier scan.
   */
  constructor(
    readonly text: string,
    private readonly coveredBefore?: Redundancy,
    private readonly literalsAt?: ReadonlyMap<LiteralsName, readonly number[]>,
  ) {}

  tokenRuns(): readonly number[] {
    this.runs ??= tokenRuns(this.text);
    return this.runs;
  }

  vendorTokenStarts(): readonly number[] {
    this.vendorStarts ??= vendorTokenStarts(this.text, this.tokenRuns());
    return this.vendorStarts;
  }

  numberStarts(): NumberStarts {
    this.numbers ??= numberStarts(this.text);
    return this.numbers;
  }

  /** Whether a finding of `type` over [start, end) would change nothing, given every finding so far. */
  readonly covers: Redundancy = (type, start, end) => {
    this.covered ??= new Covered();
    if (this.coveredUpTo < this.found.length) {
      this.covered.add(this.found.slice(this.coveredUpTo));
      this.coveredUpTo = this.found.length;
    }
    return this.covered.covers(type, start, end) || (this.coveredBefore?.(type, start, end) ?? false);
  };

  /** The findings of `rules` (see `applyRules`), tried as `options` say. */
  apply(rules: readonly Rule[], options: ApplyOptions = {}): Finding[] {
    const out: Finding[] = [];
    const anchorOptions: AnchorOptions = { at: options.at, covered: options.skipCovered ? this.covers : undefined };
    if (options.literals) {
      const given = this.literalsAt?.get(options.literals);
      if (given) anchorOptions.at = given;
      else {
        anchorOptions.seen = [];
        this.literalsSeen.set(options.literals, anchorOptions.seen);
      }
    }
    applyRules(this.text, rules, out, anchorOptions);
    return out;
  }

  /** Where the literals named `name` were found by `apply`, ascending; empty if no rules of that name ran. */
  literalPositions(name: LiteralsName): readonly number[] {
    return this.literalsSeen.get(name) ?? [];
  }

  /** Runs each family in order and returns their findings, in that order. */
  run(families: readonly Family[]): Finding[] {
    for (const family of families) for (const f of family(this)) this.found.push(f);
    return this.found;
  }
}

/** Rules that find one kind of thing, reading the text and its fast paths through the scan. */
export type Family = (scan: Scan) => Finding[];
