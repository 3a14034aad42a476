// A tfjs GraphModel's graph, compiled once into a list of op calls. tfjs's executor re-resolves every
// node's parameters by name (parsing input names, reading attributes, scoping each op) on each run; a
// plan does that once at load and per run only calls the ops. Float work runs on tfjs's kernels, or on
// code that sums in their order (batched products, pointwise convolutions as products, products of a ReLU's
// output without its zeros); small integer and boolean arrays (shapes, token positions) are computed in
// JavaScript, exactly, instead of as a WebAssembly kernel each. So its results are the executor's, bit for bit
// (tested).
import tf from '@energetic-ai/core';
import { batchMatMul } from './batch-matmul.js';
import * as host from './host-ops.js';
import { sparseRowsFits, sparseRowsProduct } from './sparse-rows.js';
import { Host } from './host-ops.js';

export interface Tensor {
  readonly shape: number[];
  readonly dtype: string;
  dispose(): void;
  dataSync(): ArrayLike<number>;
}

interface InputParam {
  type: string;
  inputIndexStart?: number;
  inputIndexEnd?: number;
}
interface GraphNode {
  name: string;
  op: string;
  inputNames: string[];
  inputs: GraphNode[];
  inputParams: Record<string, InputParam>;
  attrParams: Record<string, { value: unknown }>;
}
/** What the plan reads of a GraphModel's executor. */
export interface GraphExecutor {
  graph: { nodes: Record<string, GraphNode> };
  weightMap: Record<string, Tensor[]>;
}

/** The tfjs ops the plan calls; the package's type declarations re-export modules it does not install. */
type Op = (...args: never[]) => Tensor;
const ops = tf as unknown as Record<string, Op> & {
  tidy<T>(fn: () => T): T;
  tensor(values: ArrayLike<number>, shape: number[], dtype: string): Tensor;
};
const call = (name: string, ...args: unknown[]): Tensor => (ops[name] as (...a: unknown[]) => Tensor)(...args);

/** A slot's value: a tfjs tensor, or a small array in JavaScript (its tensor made when an op needs one). */
type Value = Tensor | Host;
type Run<R> = (...values: never[]) => R;
/**
 * One op of the graph as the executor runs it: its parameter names, the tfjs call on their values, and
 * where it has one, the same op in JavaScript, used when its tensor inputs are all JavaScript arrays
 * (or always, where it reads only shapes).
 */
interface OpDef {
  params: string[];
  device: Run<Tensor | Tensor[]>;
  host?: Run<Host | undefined>;
  shapeOnly?: boolean;
}

/**
 * Kernels called straight through tfjs's engine, as the op functions call them, without their argument
 * conversion and checks (dearer than most of the graph's kernels on its small tensors); only for the float
 * inputs those ops pass on unchanged, the op function itself otherwise.
 */
const engine = (
  tf as unknown as {
    engine(): { runKernel(name: string, inputs: object, attrs?: object): Tensor | Tensor[] };
  }
).engine();
const kernel = (name: string, inputs: object, attrs: object = {}) => engine.runKernel(name, inputs, attrs) as Tensor;
const floats = (...ts: Tensor[]) => ts.every((t) => t.dtype === 'float32');

/**
 * A float tensor's values, read in place from the WebAssembly heap (valid until the next allocation there).
 * tfjs's Slice kernel (behind SplitV) copies its whole input out of the heap for every part, and its Gather
 * kernel walks the table: both far dearer than copying the rows they return, which is all the functions below do.
 */
const tfBackend = tf as unknown as { backend(): { typedArrayFromHeap?(t: Tensor): Float32Array } };
const heapOf = (x: Tensor): Float32Array | undefined => {
  const backend = tfBackend.backend();
  return x.dtype === 'float32' && backend.typedArrayFromHeap ? backend.typedArrayFromHeap(x) : undefined;
};
/** A new float tensor of +0s in tfjs's heap, for a kernel here to write. */
const zeros = (shape: number[]) => kernel('Fill', {}, { shape, value: 0, dtype: 'float32' });

/** Rows of a float matrix at int32 `indices` (GatherV2 on axis 0), or undefined where tfjs's kernel must say why not. */
function gatherRows(x: Tensor, indices: Tensor): Tensor | undefined {
  if (x.shape.length < 1 || indices.dtype !== 'int32') return undefined;
  const at = indices.dataSync();
  const rows = x.shape[0]!;
  const width = x.shape.slice(1).reduce((n, d) => n * d, 1);
  for (let i = 0; i < at.length; i++) if (!(at[i]! >= 0 && at[i]! < rows)) return undefined;
  const heap = heapOf(x);
  if (!heap) return undefined;
  const out = new Float32Array(at.length * width);
  for (let i = 0; i < at.length; i++) out.set(heap.subarray(at[i]! * width, (at[i]! + 1) * width), i * width);
  return ops.tensor(out, [...indices.shape, ...x.shape.slice(1)], 'float32');
}

/** A float tensor cut along `axis` into parts of `sizes` (SplitV), or undefined where tfjs's kernel must run. */
function split(x: Tensor, sizes: number[], axis: number): Tensor[] | undefined {
  const dim = axis < 0 ? x.shape.length + axis : axis;
  const length = x.shape[dim];
  if (length === undefined || sizes.some((s) => s < 0) || sizes.reduce((n, s) => n + s, 0) !== length) return undefined;
  const heap = heapOf(x);
  if (!heap) return undefined;
  const outer = x.shape.slice(0, dim).reduce((n, d) => n * d, 1);
  const inner = x.shape.slice(dim + 1).reduce((n, d) => n * d, 1);
  const parts: Float32Array[] = [];
  let begin = 0;
  for (const size of sizes) {
    const part = new Float32Array(outer * size * inner);
    for (let o = 0; o < outer; o++) {
      const from = (o * length + begin) * inner;
      part.set(heap.subarray(from, from + size * inner), o * size * inner);
    }
    parts.push(part);
    begin += size;
  }
  return parts.map((part, i) =>
    ops.tensor(
      part,
      x.shape.map((d, j) => (j === dim ? sizes[i]! : d)),
      'float32',
    ),
  );
}

/**
 * Which rows of the run's [batch, length] grid of positions matter (see `Padding`); set by `execute` for
 * its run only (runs are synchronous).
 */
let runPadding: Padding | undefined;

/**
 * A pointwise (1x1) convolution of x [batch, length, 1, c] as the matrix product it is (tfjs's kernels give
 * the same floats for both, and for any subset of rows: tested), on the rows the run keeps only when it
 * gives a padding for x's grid (the other rows are left +0).
 */
function pointwiseProduct(x: Tensor, filter: Tensor): Tensor | undefined {
  if (x.shape.length !== 4 || x.shape[2] !== 1 || !floats(x, filter) || !heapOf(x)) return undefined;
  const [batch, length, , c] = x.shape as [number, number, number, number];
  const n = filter.shape[3]!;
  const b = kernel('Reshape', { x: filter }, { shape: [c, n] });
  const padding = runPadding;
  const kept =
    padding && padding.batch === batch && padding.length === length && padding.kept.length < batch * length
      ? padding.kept
      : undefined;
  if (!kept) {
    const a = kernel('Reshape', { x }, { shape: [batch * length, c] });
    const product = kernel('BatchMatMul', { a, b }, { transposeA: false, transposeB: false });
    const out = kernel('Reshape', { x: product }, { shape: [batch, length, 1, n] });
    for (const t of [a, b, product]) t.dispose();
    return out;
  }
  // Rows are copied within tfjs's heap; views are taken after each allocation, which may move it.
  const a = zeros([kept.length, c]);
  const from = heapOf(x)!;
  const rows = heapOf(a)!;
  for (let i = 0; i < kept.length; i++) rows.set(from.subarray(kept[i]! * c, (kept[i]! + 1) * c), i * c);
  const product = kernel('BatchMatMul', { a, b }, { transposeA: false, transposeB: false });
  const out = zeros([batch, length, 1, n]);
  const values = heapOf(product)!;
  const to = heapOf(out)!;
  for (let i = 0; i < kept.length; i++) to.set(values.subarray(i * n, (i + 1) * n), kept[i]! * n);
  for (const t of [a, b, product]) t.dispose();
  return out;
}

const unary = (name: string, kernelName: string): OpDef => ({
  params: ['x'],
  device: (x: Tensor) => (floats(x) ? kernel(kernelName, { x }) : call(name, x)),
});
const binary = (name: string, kernelName: string, host?: Run<Host | undefined>): OpDef => ({
  params: ['a', 'b'],
  device: (a: Tensor, b: Tensor) => (floats(a, b) ? kernel(kernelName, { a, b }) : call(name, a, b)),
  host,
});
const reduce = (name: string, host?: Run<Host | undefined>): OpDef => ({
  params: ['x', 'axis', 'keepDims'],
  device: (x: Tensor, axis: number[], keepDims: boolean) => call(name, x, axis, keepDims),
  host,
});
/**
 * A product of float matrices batched along equal leading dimensions (the attention's), which tfjs's kernel
 * runs one element at a time: computed by batch-matmul.ts in the same order. Undefined for any other product.
 */
function batchedProduct(a: Tensor, b: Tensor, transposeA: boolean, transposeB: boolean): Tensor | undefined {
  const rank = a.shape.length;
  if (transposeA || rank < 3 || b.shape.length !== rank || !a.shape.slice(0, -2).every((d, i) => d === b.shape[i]))
    return undefined;
  const batch = a.shape.slice(0, -2).reduce((n, d) => n * d, 1);
  const [m, k] = a.shape.slice(-2) as [number, number];
  const n = b.shape[transposeB ? rank - 2 : rank - 1]!;
  if (batch < 2 || b.shape[transposeB ? rank - 1 : rank - 2] !== k) return undefined;
  if (!heapOf(a) || !heapOf(b)) return undefined;
  const out = zeros([...a.shape.slice(0, -2), m, n]);
  // Views taken after the allocation, which may have moved the heap.
  batchMatMul(heapOf(a)!, heapOf(b)!, batch, m, k, n, transposeB, heapOf(out)!);
  return out;
}

const product = (a: Tensor, b: Tensor, transposeA: boolean, transposeB: boolean) =>
  floats(a, b)
    ? (batchedProduct(a, b, transposeA, transposeB) ?? kernel('BatchMatMul', { a, b }, { transposeA, transposeB }))
    : call('matMul', a, b, transposeA, transposeB);
const matMul: OpDef = { params: ['a', 'b', 'transposeA', 'transposeB'], device: product };

const tfHeap = tf as unknown as {
  backend(): { wasm?: { asm?: { memory?: object }; _malloc(bytes: number): number; _free(at: number): void } };
};

/**
 * A product [m x k] x [k x n] whose left operand is a ReLU's output (mostly zeros) by sparse-rows.ts, on tfjs's
 * heap; undefined where XNNPACK must run it.
 */
function reluRowsProduct(a: Tensor, b: Tensor, transposeA: boolean, transposeB: boolean): Tensor | undefined {
  const wasm = tfHeap.backend().wasm;
  const memory = wasm?.asm?.memory;
  if (!wasm || !memory || transposeA || transposeB || a.shape.length !== 2 || b.shape.length !== 2) return undefined;
  const [m, k] = a.shape as [number, number];
  const n = b.shape[1]!;
  if (b.shape[0] !== k || !sparseRowsFits(n) || !heapOf(a) || !heapOf(b)) return undefined;
  const out = zeros([m, n]);
  // Offsets read after the allocation, which may have moved the heap.
  const offset = (t: Tensor) => heapOf(t)!.byteOffset;
  sparseRowsProduct(
    { memory, malloc: (bytes) => wasm._malloc(bytes), free: (at) => wasm._free(at) },
    offset(a),
    offset(b),
    offset(out),
    m,
    k,
    n,
  );
  return out;
}

/** A MatMul whose left operand is a ReLU's output, reshaped or not. */
const reluMatMul: OpDef = {
  params: matMul.params,
  device: (a: Tensor, b: Tensor, transposeA: boolean, transposeB: boolean) =>
    (floats(a, b) && reluRowsProduct(a, b, transposeA, transposeB)) || product(a, b, transposeA, transposeB),
};

/** Whether a node's value is a ReLU's, through reshapes. */
function fromRelu(node: GraphNode | undefined): boolean {
  while (node && (node.op === 'Reshape' || node.op === 'ExpandDims' || node.op === 'Squeeze')) node = node.inputs[0];
  return node?.op === 'Relu';
}

/** The graph's ops, each called as tfjs-converter's executor calls it. */
const OPS: Record<string, OpDef> = {
  Add: binary('add', 'Add', host.hostAdd),
  BiasAdd: binary('add', 'Add'),
  Sub: binary('sub', 'Sub', host.hostSub),
  Mul: binary('mul', 'Multiply', host.hostMul),
  RealDiv: binary('div', 'RealDiv'),
  Maximum: binary('maximum', 'Maximum', host.hostMaximum),
  Less: binary('less', 'Less', host.hostLess),
  Greater: binary('greater', 'Greater', host.hostGreater),
  LogicalNot: { params: ['a'], device: (a: Tensor) => call('logicalNot', a), host: host.hostLogicalNot },
  Sin: unary('sin', 'Sin'),
  Cos: unary('cos', 'Cos'),
  Square: unary('square', 'Square'),
  Rsqrt: unary('rsqrt', 'Rsqrt'),
  Relu: unary('relu', 'Relu'),
  Tanh: unary('tanh', 'Tanh'),
  Softmax: {
    params: ['x'],
    device: (x: Tensor) =>
      floats(x) ? kernel('Softmax', { logits: x }, { dim: x.shape.length - 1 }) : call('softmax', x),
  },
  Max: reduce('max', host.hostMax),
  Mean: {
    params: ['x', 'axis', 'keepDims'],
    device: (x: Tensor, axis: number[], keepDims: boolean) => kernel('Mean', { x }, { axis, keepDims }),
  },
  Sum: {
    params: ['x', 'axis', 'keepDims'],
    device: (x: Tensor, axis: number[], keepDims: boolean) =>
      floats(x) ? kernel('Sum', { x }, { axis, keepDims }) : call('sum', x, axis, keepDims),
    host: host.hostSum,
  },
  Prod: reduce('prod', host.hostProd),
  MatMul: matMul,
  BatchMatMul: matMul,
  Shape: {
    params: ['x'],
    device: (x: Tensor) => ops.tensor(x.shape, [x.shape.length], 'int32'),
    host: host.hostShape,
    shapeOnly: true,
  },
  Cast: {
    params: ['x', 'dtype'],
    device: (x: Tensor, dtype: string) => call('cast', x, dtype),
    host: host.hostCast,
  },
  ExpandDims: {
    params: ['x', 'axis'],
    device: (x: Tensor, axis: number) => kernel('ExpandDims', { input: x }, { dim: axis }),
    host: host.hostExpandDims,
  },
  Squeeze: {
    params: ['x', 'axis'],
    device: (x: Tensor, axis: number[]) => call('squeeze', x, axis),
    host: host.hostSqueeze,
  },
  Reshape: {
    params: ['x', 'shape'],
    device: (x: Tensor, shape: number[]) => kernel('Reshape', { x }, { shape }),
    host: host.hostReshape,
  },
  Transpose: {
    params: ['x', 'perm'],
    device: (x: Tensor, perm: number[]) =>
      floats(x) && x.shape.length > 1 ? kernel('Transpose', { x }, { perm }) : call('transpose', x, perm),
  },
  Conv2D: {
    params: ['x', 'filter', 'strides', 'pad', 'dataFormat', 'dilations'],
    device: (x: Tensor, filter: Tensor, strides: number[], pad: string, dataFormat: string, dilations: number[]) => {
      if (pad === 'explicit') throw new Error('explicit Conv2D padding is not planned');
      const pointwise =
        filter.shape[0] === 1 &&
        filter.shape[1] === 1 &&
        [strides[1], strides[2], dilations[1], dilations[2]].every((d) => d === 1) &&
        dataFormat.toUpperCase() === 'NHWC';
      return (
        (pointwise && pointwiseProduct(x, filter)) ||
        call('conv2d', x, filter, [strides[1], strides[2]], pad, dataFormat.toUpperCase(), [dilations[1], dilations[2]])
      );
    },
  },
  ConcatV2: {
    params: ['tensors', 'n', 'axis'],
    device: (tensors: Tensor[], n: number, axis: number) => call('concat', tensors.slice(0, n), axis),
    host: (tensors: Host[], n: number, axis: number) => host.hostConcat(tensors.slice(0, n), axis),
  },
  GatherV2: {
    params: ['x', 'indices', 'axis', 'batchDims'],
    device: (x: Tensor, indices: Tensor, axis: number, batchDims: number) =>
      (axis === 0 && batchDims === 0 && gatherRows(x, indices)) ||
      call('gather', x, call('cast', indices, 'int32'), axis, batchDims),
    host: host.hostGather,
  },
  GatherNd: {
    params: ['x', 'indices'],
    device: (x: Tensor, indices: Tensor) =>
      indices.dtype === 'int32' ? kernel('GatherNd', { params: x, indices }) : call('gatherND', x, indices),
  },
  ScatterNd: {
    params: ['indices', 'values', 'shape'],
    device: (indices: Tensor, values: Tensor, shape: number[]) => call('scatterND', indices, values, shape),
  },
  SparseToDense: {
    params: ['sparseIndices', 'outputShape', 'sparseValues', 'defaultValue'],
    device: (indices: Tensor, shape: number[], values: Tensor, fill: Tensor) =>
      call(
        'sparseToDense',
        indices,
        values,
        shape,
        values.dtype === fill.dtype ? fill : call('cast', fill, values.dtype),
      ),
    host: host.hostSparseToDense,
  },
  Slice: {
    params: ['x', 'begin', 'size'],
    device: (x: Tensor, begin: number[], size: number[]) => call('slice', x, begin, size),
    host: host.hostSlice,
  },
  StridedSlice: {
    params: ['x', 'begin', 'end', 'strides', 'beginMask', 'endMask', 'ellipsisMask', 'newAxisMask', 'shrinkAxisMask'],
    device: (x: Tensor, ...spec: unknown[]) => call('stridedSlice', x, ...spec),
    host: host.hostStridedSlice,
  },
  SplitV: {
    params: ['x', 'numOrSizeSplits', 'axis'],
    device: (x: Tensor, sizes: number[], axis: number) =>
      split(x, sizes, axis) ?? (engine.runKernel('SplitV', { x }, { numOrSizeSplits: sizes, axis }) as Tensor[]),
  },
  Pack: {
    params: ['tensors', 'axis'],
    device: (tensors: Tensor[], axis: number) => {
      const shape = tensors[0]!.shape;
      const same = (s: number[]) => s.length === shape.length && s.every((d, i) => d === shape[i]);
      return call(
        'stack',
        tensors.map((t) => (same(t.shape) ? t : call('reshape', t, shape))),
        axis,
      );
    },
    host: host.hostStack,
  },
  Range: {
    params: ['start', 'stop', 'step', 'dtype'],
    device: (start: number, stop: number, step: number, dtype: string) => call('range', start, stop, step, dtype),
    host: host.hostRange,
  },
};

/** Constants of integer or boolean dtype up to this size are kept as JavaScript arrays too. */
const HOST_CONSTANT_MAX = 64;

interface Step {
  def: OpDef;
  args: ((env: Value[]) => unknown)[];
  /** Which arguments are tensors (one, or a list). */
  tensorArgs: boolean[];
  /** Slot of the node's first output; further outputs follow it. */
  out: number;
  outputs: number;
  /** Slots whose last reader is this step. */
  free: number[];
}

const numbersOf = (v: Value): number[] => Array.from(v instanceof Host ? v.data : v.dataSync());
const isHost = (v: unknown): boolean => (Array.isArray(v) ? v.every((x) => x instanceof Host) : v instanceof Host);

/** An int32 array the caller feeds a run. */
export interface Feed {
  shape: number[];
  data: Int32Array;
}

/**
 * The rows of a run's [batch, length] grid of positions (texts by token positions) that reach its output, in
 * row-major order: `kept` holds b * length + p for each. Given to a run of a graph in which the other rows are
 * padding that never reaches the output (attention masks them, a gather drops them), its pointwise
 * convolutions skip those rows. Only a test against the full run can tell that a graph is such a graph.
 */
export interface Padding {
  batch: number;
  length: number;
  kept: Int32Array;
}

/** A graph compiled to op calls, from named fed tensors to one output. */
export class GraphPlan {
  private readonly steps: Step[] = [];
  private readonly constants: Value[] = [];
  private readonly feedSlots: number[];
  private readonly outputSlot: number;
  private slotCount = 0;

  /**
   * `feeds` are the nodes whose values each run supplies (placeholders, or any node the caller computes
   * itself: the graph above them is not run); `output` is the node whose first output a run returns.
   */
  constructor(executor: GraphExecutor, feeds: string[], output: string) {
    const { nodes } = executor.graph;
    const slots = new Map<string, number>();
    const lastRead = new Map<number, Step>();
    const fed = new Set(feeds);
    const slotOf = (inputName: string): number => {
      const [name, index] = inputName.split(':') as [string, string | undefined];
      const base = slots.get(name);
      if (base === undefined) throw new Error(`graph plan: ${name} is read before it is computed`);
      return base + Number(index ?? 0);
    };
    const place = (name: string, count: number) => {
      slots.set(name, this.slotCount);
      this.slotCount += count;
    };
    for (const name of feeds) place(name, 1);
    const visited = new Set<string>();
    const visit = (node: GraphNode) => {
      if (visited.has(node.name)) return;
      visited.add(node.name);
      if (fed.has(node.name)) return;
      if (node.op === 'Const') {
        const weight = executor.weightMap[node.name]?.[0];
        if (!weight) throw new Error(`graph plan: constant ${node.name} has no value`);
        place(node.name, 1);
        this.constants[slots.get(node.name)!] = hostConstant(weight);
        return;
      }
      for (const input of node.inputs) visit(input);
      const def = node.op === 'MatMul' && fromRelu(node.inputs[0]) ? reluMatMul : OPS[node.op];
      if (!def) throw new Error(`graph plan: op ${node.op} (${node.name}) is not planned`);
      const step: Step = { def, args: [], tensorArgs: [], out: 0, outputs: 1, free: [] };
      for (const param of def.params) {
        const type = node.inputParams[param]?.type;
        step.tensorArgs.push(type === 'tensor' || type === 'tensors');
        step.args.push(this.argument(node, param, slotOf, (slot) => lastRead.set(slot, step)));
      }
      // A split has one output per size; the graph's sizes are constants.
      if (node.op === 'SplitV') step.outputs = (step.args[1]!(this.constants) as number[]).length;
      place(node.name, step.outputs);
      step.out = slots.get(node.name)!;
      this.steps.push(step);
    };
    for (const name of feeds) if (!nodes[name]) throw new Error(`graph plan: no node ${name}`);
    const last = nodes[output];
    if (!last) throw new Error(`graph plan: no node ${output}`);
    visit(last);
    this.feedSlots = feeds.map((name) => slots.get(name)!);
    this.outputSlot = slots.get(output)!;
    for (const [slot, step] of lastRead) if (this.constants[slot] === undefined) step.free.push(slot);
  }

  /** How a step reads one parameter: a slot's value(s), a constant's numbers (read once), or an attribute. */
  private argument(
    node: GraphNode,
    param: string,
    slotOf: (inputName: string) => number,
    read: (slot: number) => void,
  ): (env: Value[]) => unknown {
    const input = node.inputParams[param];
    if (input?.inputIndexStart === undefined) {
      const value = node.attrParams[param]?.value;
      return () => value;
    }
    const start = input.inputIndexStart;
    if (input.type === 'tensors') {
      const end = input.inputIndexEnd === 0 ? undefined : input.inputIndexEnd;
      const list = node.inputNames
        .slice(start, end)
        .filter((_, i) => node.inputs.slice(start, end)[i]?.op !== 'NoOp')
        .map(slotOf);
      for (const slot of list) read(slot);
      return (env) => list.map((slot) => env[slot]);
    }
    const slot = slotOf(node.inputNames[start < 0 ? node.inputNames.length + start : start]!);
    if (input.type === 'tensor') {
      read(slot);
      return (env) => env[slot];
    }
    const constant = this.constants[slot];
    if (constant) {
      const value = input.type === 'number' ? numbersOf(constant)[0] : numbersOf(constant);
      return () => value;
    }
    read(slot);
    if (input.type === 'number') return (env) => numbersOf(env[slot]!)[0];
    return (env) => numbersOf(env[slot]!);
  }

  /**
   * Runs the plan on `feeds` (in the constructor's order), its pointwise convolutions on the rows `padding`
   * keeps when given; the caller disposes the output.
   */
  execute(feeds: Feed[], padding?: Padding): Tensor {
    runPadding = padding;
    try {
      return this.run(feeds);
    } finally {
      runPadding = undefined;
    }
  }

  private run(feeds: Feed[]): Tensor {
    return ops.tidy(() => {
      const env: Value[] = this.constants.slice();
      env.length = this.slotCount;
      this.feedSlots.forEach((slot, i) => {
        env[slot] = new Host('int32', feeds[i]!.shape, feeds[i]!.data);
      });
      const made = new Map<Host, Tensor>();
      const device = (v: unknown): unknown => {
        if (Array.isArray(v)) return v.map(device);
        if (!(v instanceof Host)) return v;
        let t = made.get(v) ?? constantTensors.get(v);
        if (!t) {
          t = ops.tensor(v.data, v.shape, v.dtype);
          made.set(v, t);
        }
        return t;
      };
      for (const step of this.steps) {
        const { def, tensorArgs } = step;
        const values = step.args.map((arg) => arg(env));
        let result: Value | Value[] | undefined;
        if (def.host && (def.shapeOnly || tensorArgs.every((isTensor, i) => !isTensor || isHost(values[i]))))
          result = def.host(...(values as never[]));
        if (result === undefined) {
          const inputs = values.map((v, i) => (tensorArgs[i] ? device(v) : v));
          result = def.device(...(inputs as never[]));
        }
        const results = Array.isArray(result) ? result : [result];
        results.forEach((v, i) => {
          env[step.out + i] = v;
        });
        for (const slot of step.free) {
          const v = env[slot]!;
          env[slot] = undefined as unknown as Value;
          const t = v instanceof Host ? made.get(v) : v;
          made.delete(v as Host);
          // An op may hand back its input itself.
          if (t && !results.includes(t)) t.dispose();
        }
      }
      const output = env[this.outputSlot]!;
      return output instanceof Host ? (device(output) as Tensor) : output;
    });
  }
}

/** The tensors of constants also kept as JavaScript arrays. */
const constantTensors = new WeakMap<Host, Tensor>();

function hostConstant(weight: Tensor): Value {
  const size = weight.shape.reduce((n, d) => n * d, 1);
  if ((weight.dtype !== 'int32' && weight.dtype !== 'bool') || size > HOST_CONSTANT_MAX) return weight;
  const constant = new Host(weight.dtype, weight.shape.slice(), Array.from(weight.dataSync()));
  constantTensors.set(constant, weight);
  return constant;
}
