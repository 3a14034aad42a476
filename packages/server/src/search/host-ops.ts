// Graph ops on small integer and boolean arrays, computed in JavaScript with tfjs's semantics: a graph's
// shape arithmetic and index bookkeeping, which as WebAssembly kernels cost a dispatch, an allocation
// and a copy each. Every function returns undefined where it does not apply (a float input, an axis it
// does not handle), and the caller runs tfjs's op instead. Integer results stay far inside int32.
import tf from '@energetic-ai/core';

export type HostDtype = 'int32' | 'bool' | 'float32';

/** An array in JavaScript: shape, dtype and row-major values. */
export class Host {
  constructor(
    readonly dtype: HostDtype,
    readonly shape: number[],
    readonly data: ArrayLike<number>,
  ) {}
}

interface SliceInfo {
  finalShape: number[];
  begin: number[];
  end: number[];
  strides: number[];
}
const sliceUtil = (
  tf as unknown as {
    slice_util: {
      sliceInfo(shape: number[], ...args: unknown[]): SliceInfo;
      computeOutShape(begin: number[], end: number[], strides: number[]): number[];
    };
  }
).slice_util;

const sizeOf = (shape: number[]) => shape.reduce((n, d) => n * d, 1);
/** Most elements an op here makes: the graph's arrays are far smaller, and a larger one is tfjs's to refuse. */
const HOST_MAX = 1 << 20;
const fits = (shape: number[]) => shape.every((d) => Number.isInteger(d) && d >= 0) && sizeOf(shape) <= HOST_MAX;
const stridesOf = (shape: number[]) => {
  const strides = new Array<number>(shape.length);
  for (let d = shape.length - 1, s = 1; d >= 0; d--) {
    strides[d] = s;
    s *= shape[d]!;
  }
  return strides;
};
const isInt = (x: Host) => x.dtype === 'int32';
const sameShape = (a: number[], b: number[]) => a.length === b.length && a.every((d, i) => d === b[i]);

/** The values at `begin + i * step` along each dimension, i < `sizes` (row-major). */
function gatherStrided(x: Host, begin: number[], step: number[], sizes: number[]): number[] {
  const inStrides = stridesOf(x.shape);
  const outStrides = stridesOf(sizes);
  const out = new Array<number>(sizeOf(sizes));
  for (let flat = 0; flat < out.length; flat++) {
    let rest = flat;
    let at = 0;
    for (let d = 0; d < sizes.length; d++) {
      const i = Math.floor(rest / outStrides[d]!);
      rest -= i * outStrides[d]!;
      at += (begin[d]! + i * step[d]!) * inStrides[d]!;
    }
    out[flat] = x.data[at]!;
  }
  return out;
}

export const hostShape = (x: { shape: number[] }) => new Host('int32', [x.shape.length], x.shape.slice());

export function hostReshape(x: Host, shape: number[]): Host | undefined {
  const known = shape.reduce((n, d) => (d === -1 ? n : n * d), 1);
  if (known === 0 || x.data.length % known !== 0) return undefined;
  const resolved = shape.map((d) => (d === -1 ? x.data.length / known : d));
  return sizeOf(resolved) === x.data.length ? new Host(x.dtype, resolved, x.data) : undefined;
}

export function hostExpandDims(x: Host, axis: number): Host {
  const at = axis < 0 ? x.shape.length + 1 + axis : axis;
  return new Host(x.dtype, [...x.shape.slice(0, at), 1, ...x.shape.slice(at)], x.data);
}

export function hostSqueeze(x: Host, axis: number[] | undefined): Host {
  const drop = new Set((axis ?? []).map((a) => (a < 0 ? x.shape.length + a : a)));
  const shape = x.shape.filter((d, i) => (drop.size === 0 ? d !== 1 : !(drop.has(i) && d === 1)));
  return new Host(x.dtype, shape, x.data);
}

/** Casts, except to bool from another dtype (tfjs's WebAssembly cast keeps the low byte there). */
export function hostCast(x: Host, dtype: string): Host | undefined {
  if (dtype === 'bool' && x.dtype !== 'bool') return undefined;
  const convert: Record<string, (v: number) => number> = {
    bool: (v) => (v !== 0 ? 1 : 0),
    int32: (v) => Math.trunc(v),
    float32: (v) => Math.fround(v),
  };
  const f = convert[dtype];
  return f ? new Host(dtype as HostDtype, x.shape, Array.from(x.data, f)) : undefined;
}

export const hostLogicalNot = (x: Host) =>
  x.dtype === 'bool'
    ? new Host(
        'bool',
        x.shape,
        Array.from(x.data, (v) => 1 - v),
      )
    : undefined;

/** An elementwise op of two int32 arrays, broadcast as tfjs does. */
function broadcast(a: Host, b: Host, dtype: HostDtype, f: (x: number, y: number) => number): Host | undefined {
  if (!isInt(a) || !isInt(b)) return undefined;
  const rank = Math.max(a.shape.length, b.shape.length);
  const pad = (s: number[]) => [...new Array<number>(rank - s.length).fill(1), ...s];
  const as = pad(a.shape);
  const bs = pad(b.shape);
  const shape: number[] = [];
  for (let d = 0; d < rank; d++) {
    if (as[d] !== bs[d] && as[d] !== 1 && bs[d] !== 1) return undefined;
    shape.push(as[d] === 1 ? bs[d]! : as[d]!);
  }
  if (!fits(shape)) return undefined;
  const outStrides = stridesOf(shape);
  const aStrides = stridesOf(as).map((s, d) => (as[d] === 1 ? 0 : s));
  const bStrides = stridesOf(bs).map((s, d) => (bs[d] === 1 ? 0 : s));
  const out = new Array<number>(sizeOf(shape));
  for (let flat = 0; flat < out.length; flat++) {
    let rest = flat;
    let ai = 0;
    let bi = 0;
    for (let d = 0; d < rank; d++) {
      const i = Math.floor(rest / outStrides[d]!);
      rest -= i * outStrides[d]!;
      ai += i * aStrides[d]!;
      bi += i * bStrides[d]!;
    }
    out[flat] = f(a.data[ai]!, b.data[bi]!);
  }
  return new Host(dtype, shape, out);
}

export const hostAdd = (a: Host, b: Host) => broadcast(a, b, 'int32', (x, y) => (x + y) | 0);
export const hostSub = (a: Host, b: Host) => broadcast(a, b, 'int32', (x, y) => (x - y) | 0);
export const hostMul = (a: Host, b: Host) => broadcast(a, b, 'int32', (x, y) => Math.imul(x, y));
export const hostMaximum = (a: Host, b: Host) => broadcast(a, b, 'int32', (x, y) => Math.max(x, y));
export const hostLess = (a: Host, b: Host) => broadcast(a, b, 'bool', (x, y) => (x < y ? 1 : 0));
export const hostGreater = (a: Host, b: Host) => broadcast(a, b, 'bool', (x, y) => (x > y ? 1 : 0));

/** A reduction of an int32 array over `axis` (at least one axis). */
function reduce(
  x: Host,
  axis: number[],
  keepDims: boolean,
  init: number,
  f: (acc: number, v: number) => number,
): Host | undefined {
  if (!isInt(x) || axis.length === 0) return undefined;
  const rank = x.shape.length;
  const reduced = new Set(axis.map((a) => (a < 0 ? rank + a : a)));
  const kept = x.shape.map((d, i) => (reduced.has(i) ? 1 : d));
  const keptStrides = stridesOf(kept).map((s, i) => (reduced.has(i) ? 0 : s));
  const inStrides = stridesOf(x.shape);
  const out = new Array<number>(sizeOf(kept)).fill(init);
  for (let flat = 0; flat < x.data.length; flat++) {
    let rest = flat;
    let at = 0;
    for (let d = 0; d < rank; d++) {
      const i = Math.floor(rest / inStrides[d]!);
      rest -= i * inStrides[d]!;
      at += i * keptStrides[d]!;
    }
    out[at] = f(out[at]!, x.data[flat]!);
  }
  const shape = keepDims ? kept : x.shape.filter((_, i) => !reduced.has(i));
  return new Host('int32', shape, out);
}

export const hostSum = (x: Host, axis: number[], keepDims: boolean) =>
  reduce(x, axis, keepDims, 0, (acc, v) => (acc + v) | 0);
export const hostProd = (x: Host, axis: number[], keepDims: boolean) =>
  reduce(x, axis, keepDims, 1, (acc, v) => Math.imul(acc, v));
export const hostMax = (x: Host, axis: number[], keepDims: boolean) =>
  x.data.length === 0 ? undefined : reduce(x, axis, keepDims, -(2 ** 31), (acc, v) => Math.max(acc, v));

/** A strided slice with non-negative bounds and strides (tfjs's kernels read some others differently). */
export function hostStridedSlice(
  x: Host,
  begin: number[],
  end: number[],
  strides: number[],
  ...masks: number[]
): Host | undefined {
  if ([...begin, ...end].some((b) => b < 0) || strides.some((s) => s <= 0)) return undefined;
  const info = sliceUtil.sliceInfo(x.shape, begin, end, strides, ...masks);
  const sizes = sliceUtil.computeOutShape(info.begin, info.end, info.strides);
  return new Host(x.dtype, info.finalShape, gatherStrided(x, info.begin, info.strides, sizes));
}

export function hostSlice(x: Host, begin: number[], size: number[]): Host | undefined {
  if (begin.some((b, d) => b < 0 || b > x.shape[d]!)) return undefined;
  const sizes = size.map((s, d) => (s === -1 ? x.shape[d]! - begin[d]! : s));
  return new Host(
    x.dtype,
    sizes,
    gatherStrided(
      x,
      begin,
      sizes.map(() => 1),
      sizes,
    ),
  );
}

/** Concatenation of vectors (axis 0). */
export function hostConcat(xs: Host[], axis: number): Host | undefined {
  if (xs.length === 0 || !xs.every((x) => x.shape.length === 1 && x.dtype === xs[0]!.dtype)) return undefined;
  if (axis !== 0 && axis !== -1) return undefined;
  const data = xs.flatMap((x) => Array.from(x.data));
  return new Host(xs[0]!.dtype, [data.length], data);
}

/** Stacking of same-shaped arrays along a new first axis. */
export function hostStack(xs: Host[], axis: number): Host | undefined {
  const first = xs[0];
  if (!first || axis !== 0 || !xs.every((x) => x.dtype === first.dtype && sameShape(x.shape, first.shape)))
    return undefined;
  return new Host(
    first.dtype,
    [xs.length, ...first.shape],
    xs.flatMap((x) => Array.from(x.data)),
  );
}

/** Rows of `x` (axis 0) at `indices`. */
export function hostGather(x: Host, indices: Host, axis: number, batchDims: number): Host | undefined {
  if ((axis !== 0 && axis !== -x.shape.length) || batchDims !== 0 || !isInt(indices)) return undefined;
  const row = sizeOf(x.shape.slice(1));
  const out: number[] = [];
  for (let i = 0; i < indices.data.length; i++) {
    const at = indices.data[i]!;
    if (at < 0 || at >= x.shape[0]!) return undefined;
    for (let j = 0; j < row; j++) out.push(x.data[at * row + j]!);
  }
  return new Host(x.dtype, [...indices.shape, ...x.shape.slice(1)], out);
}

/** An ascending int32 range (tfjs turns some other ranges around). */
export function hostRange(start: number, stop: number, step: number, dtype: string): Host | undefined {
  if (dtype !== 'int32' || step <= 0 || stop < start) return undefined;
  const count = Math.max(Math.ceil((stop - start) / step), 0);
  if (!fits([count])) return undefined;
  return new Host(
    'int32',
    [count],
    Array.from({ length: count }, (_, i) => start + i * step),
  );
}

/** A dense array of `shape` holding `values` at `indices` (rows of coordinates) and `fill` elsewhere. */
export function hostSparseToDense(indices: Host, shape: number[], values: Host, fill: Host): Host | undefined {
  if (!isInt(indices) || values.dtype !== fill.dtype || fill.data.length !== 1 || !fits(shape)) return undefined;
  const rank = shape.length;
  const count = indices.shape.length === 0 ? 1 : indices.shape[0]!;
  if (indices.data.length !== count * rank || (values.data.length !== count && values.data.length !== 1))
    return undefined;
  const strides = stridesOf(shape);
  const out = new Array<number>(sizeOf(shape)).fill(fill.data[0]!);
  for (let i = 0; i < count; i++) {
    let at = 0;
    for (let d = 0; d < rank; d++) {
      const c = indices.data[i * rank + d]!;
      if (c < 0 || c >= shape[d]!) return undefined;
      at += c * strides[d]!;
    }
    out[at] = values.data[values.data.length === 1 ? 0 : i]!;
  }
  return new Host(values.dtype, shape, out);
}
