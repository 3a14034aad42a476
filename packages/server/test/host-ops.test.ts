import tf from '@energetic-ai/core';
import { beforeAll, describe, expect, it } from 'vitest';
import * as h from '../src/search/host-ops.js';
import { Host, type HostDtype } from '../src/search/host-ops.js';

interface Tensor {
  shape: number[];
  dtype: string;
  dataSync(): ArrayLike<number>;
}
const ops = tf as unknown as Record<string, (...args: unknown[]) => Tensor> & { ready(): Promise<void> };

const host = (data: number[], shape: number[] = [data.length], dtype: HostDtype = 'int32') =>
  new Host(dtype, shape, data);
const tensor = (x: Host) => ops.tensor!(Array.from(x.data), x.shape, x.dtype);
/** What tfjs's op gives, in the Host form. */
const viaTfjs = (name: string, ...args: unknown[]) => {
  const t = ops[name]!(
    ...args.map((a) => (a instanceof Host ? tensor(a) : Array.isArray(a) && a[0] instanceof Host ? a.map(tensor) : a)),
  );
  return { dtype: t.dtype, shape: t.shape, data: Array.from(t.dataSync()) };
};
const plain = (x: Host | undefined) => x && { dtype: x.dtype, shape: x.shape, data: Array.from(x.data) };

const matrix = host([3, -1, 4, 1, -5, 9, 2, 6, -5, 3, 5, 8], [3, 4]);
const vector = host([7, 0, -2, 5, 11]);

beforeAll(() => ops.ready());

describe('host ops give tfjs ops’ results', () => {
  it('reshape, expandDims, squeeze, shape', () => {
    for (const shape of [[4, 3], [-1, 2], [2, 2, -1], [12]])
      expect(plain(h.hostReshape(matrix, shape))).toEqual(viaTfjs('reshape', matrix, shape));
    expect(h.hostReshape(matrix, [5, -1])).toBeUndefined();
    for (const axis of [0, 1, 2, -1, -3])
      expect(plain(h.hostExpandDims(matrix, axis))).toEqual(viaTfjs('expandDims', matrix, axis));
    const ones = host([1, 2, 3], [1, 3, 1]);
    for (const axis of [undefined, [0], [2], [-1], [0, 2]])
      expect(plain(h.hostSqueeze(ones, axis))).toEqual(viaTfjs('squeeze', ones, axis));
    expect(plain(h.hostShape(matrix))).toEqual({ dtype: 'int32', shape: [2], data: [3, 4] });
  });

  it('cast and logicalNot', () => {
    for (const dtype of ['float32', 'int32'])
      expect(plain(h.hostCast(matrix, dtype))).toEqual(viaTfjs('cast', matrix, dtype));
    expect(h.hostCast(matrix, 'bool')).toBeUndefined();
    expect(plain(h.hostCast(host([1.5, -2.7, 3], [3], 'float32'), 'int32'))).toEqual(
      viaTfjs('cast', host([1.5, -2.7, 3], [3], 'float32'), 'int32'),
    );
    const flags = host([1, 0, 0, 1], [2, 2], 'bool');
    expect(plain(h.hostCast(flags, 'float32'))).toEqual(viaTfjs('cast', flags, 'float32'));
    expect(plain(h.hostLogicalNot(flags))).toEqual(viaTfjs('logicalNot', flags));
    expect(h.hostLogicalNot(matrix)).toBeUndefined();
  });

  it('elementwise ops, broadcast', () => {
    const pairs: [Host, Host][] = [
      [vector, host([3], [])],
      [host([2], []), vector],
      [matrix, host([1, -2, 3, 0])],
      [matrix, host([10, 20, 30], [3, 1])],
      [host([1, 2], [2, 1, 1]), host([0, 5, -3], [3, 1])],
      [matrix, host([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2], [3, 4])],
    ];
    const fns = {
      add: h.hostAdd,
      sub: h.hostSub,
      mul: h.hostMul,
      maximum: h.hostMaximum,
      less: h.hostLess,
      greater: h.hostGreater,
    };
    for (const [name, fn] of Object.entries(fns))
      for (const [a, b] of pairs) expect(plain(fn(a, b)), `${name} ${a.shape} ${b.shape}`).toEqual(viaTfjs(name, a, b));
    expect(h.hostAdd(matrix, host([1, 2, 3]))).toBeUndefined();
    expect(h.hostAdd(host([1.5], [], 'float32'), host([1], []))).toBeUndefined();
  });

  it('reductions', () => {
    const cube = host(
      Array.from({ length: 24 }, (_, i) => ((i * 7) % 11) - 4),
      [2, 3, 4],
    );
    for (const x of [vector, matrix, cube])
      for (const axis of [[0], [-1], [1], [0, 1], [0, 2]].filter((a) => a.every((d) => d < x.shape.length)))
        for (const keepDims of [false, true]) {
          expect(plain(h.hostSum(x, axis, keepDims))).toEqual(viaTfjs('sum', x, axis, keepDims));
          expect(plain(h.hostMax(x, axis, keepDims))).toEqual(viaTfjs('max', x, axis, keepDims));
          if (x !== cube) expect(plain(h.hostProd(x, axis, keepDims))).toEqual(viaTfjs('prod', x, axis, keepDims));
        }
    expect(h.hostSum(matrix, [], false)).toBeUndefined();
  });

  it('strided slices and slices', () => {
    const specs: [number[], number[], number[], number, number, number, number, number][] = [
      [[0, 1], [0, 2], [1, 1], 1, 1, 0, 0, 2],
      [[1], [3], [1], 0, 0, 0, 0, 0],
      [[0], [1], [1], 0, 0, 0, 0, 1],
      [[-1], [0], [-1], 0, 1, 0, 0, 0],
      [[1, 0], [3, 4], [1, 2], 0, 0, 0, 0, 0],
      [[0, 0], [0, 0], [1, 1], 3, 3, 0, 0, 0],
      [[0, -2], [2, -1], [2, 1], 0, 0, 0, 0, 2],
      [[0], [2], [1], 0, 0, 0, 1, 0],
    ];
    for (const x of [vector, matrix])
      for (const [begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask] of specs) {
        if (begin.length > x.shape.length) continue;
        const args = [begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask];
        // tfjs's WebAssembly strided slice returns int32 values as floats' bits on its general path: compare on floats.
        const floats = new Host('float32', x.shape, x.data);
        const mine = h.hostStridedSlice(floats, ...args);
        if (begin.some((b) => b < 0) || strides.some((s) => s < 0)) expect(mine).toBeUndefined();
        else {
          expect(plain(mine), JSON.stringify(args)).toEqual(viaTfjs('stridedSlice', floats, ...args));
          expect(h.hostStridedSlice(x, ...args)!.dtype).toBe('int32');
        }
      }
    expect(plain(h.hostSlice(matrix, [1, 1], [2, -1]))).toEqual(viaTfjs('slice', matrix, [1, 1], [2, -1]));
    expect(plain(h.hostSlice(vector, [2], [-1]))).toEqual(viaTfjs('slice', vector, [2], [-1]));
    expect(h.hostSlice(vector, [-1], [1])).toBeUndefined();
  });

  it('concat, stack, gather', () => {
    const parts = [vector, host([4]), host([], [0]), host([1, 2])];
    expect(plain(h.hostConcat(parts, 0))).toEqual(viaTfjs('concat', parts, 0));
    expect(h.hostConcat([matrix, matrix], 0)).toBeUndefined();
    const scalars = [host([3], []), host([-1], []), host([8], [])];
    expect(plain(h.hostStack(scalars, 0))).toEqual(viaTfjs('stack', scalars, 0));
    expect(plain(h.hostStack([vector, vector], 0))).toEqual(viaTfjs('stack', [vector, vector], 0));
    expect(h.hostStack([vector, vector], 1)).toBeUndefined();
    const rows = host([2, 0, 2, 1]);
    const grid = host([0, 1, 2, 0], [2, 2]);
    for (const [x, i] of [
      [vector, rows],
      [matrix, rows],
      [matrix, grid],
      [vector, host([4], [])],
    ] as [Host, Host][])
      expect(plain(h.hostGather(x, i, 0, 0))).toEqual(viaTfjs('gather', x, tensor(i), 0, 0));
    expect(h.hostGather(matrix, rows, 1, 0)).toBeUndefined();
    expect(h.hostGather(matrix, host([3]), 0, 0)).toBeUndefined();
  });

  it('range and sparseToDense', () => {
    for (const [start, stop, step] of [
      [0, 5, 1],
      [2, 11, 3],
      [3, 3, 1],
      [-4, 2, 4],
    ])
      expect(plain(h.hostRange(start!, stop!, step!, 'int32'))).toEqual(viaTfjs('range', start, stop, step, 'int32'));
    expect(h.hostRange(0, 3, 1, 'float32')).toBeUndefined();
    expect(h.hostRange(5, 0, -2, 'int32')).toBeUndefined();
    expect(h.hostRange(4, 1, 1, 'int32')).toBeUndefined();
    const cells = host([0, 0, 0, 1, 1, 0, 2, 3], [4, 2]);
    const values = host([5, 6, 7, 8]);
    const fill = host([0], []);
    expect(plain(h.hostSparseToDense(cells, [3, 4], values, fill))).toEqual(
      viaTfjs('sparseToDense', cells, values, [3, 4], fill),
    );
    expect(plain(h.hostSparseToDense(host([1, 3]), [5], host([9], []), host([-1], [])))).toEqual(
      viaTfjs('sparseToDense', host([1, 3]), host([9], []), [5], host([-1], [])),
    );
    expect(h.hostSparseToDense(cells, [2, 4], values, fill)).toBeUndefined();
    // Shapes tfjs refuses are left to it.
    expect(h.hostSparseToDense(host([], [0, 2]), [1, -2147483647], host([]), fill)).toBeUndefined();
    expect(h.hostRange(0, 2 ** 30, 1, 'int32')).toBeUndefined();
    expect(h.hostAdd(host([1], [1, 1]), host(new Array(4096).fill(0), [4096, 1]))).toBeDefined();
  });
});
