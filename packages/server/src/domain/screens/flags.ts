// What one injection layer reports: which layer, which of its rules, and where in the screened text.

/** The injection screen's layers, each a module of its own. */
export type InjectionLayer = 'instructions' | 'code' | 'off_task' | 'encoded' | 'markup' | 'hidden_text' | 'semantic';

export interface LayerFlag {
  layer: InjectionLayer;
  rule: string;
  /** UTF-16 offsets of what matched, in the text the layer read. */
  start: number;
  end: number;
}

/** A flag of `layer`, `rule`, at `start`..`end`. */
export const flagAt = (layer: InjectionLayer, rule: string, start: number, end: number): LayerFlag => ({
  layer,
  rule,
  start,
  end,
});

/** The flags moved by `offset` (a layer that read a slice of the text reports in the whole text's offsets). */
export const shifted = (flags: readonly LayerFlag[], offset: number): LayerFlag[] =>
  flags.map((f) => ({ ...f, start: f.start + offset, end: f.end + offset }));
