import { type EditOutcome, sameJson } from './edit.js';
import { deleteAt, duplicateOnPath, nodeAt, parseJsonc, setAt, valueAt } from './jsonc.js';

/** A hook group as Claude Code and Gemini CLI read them: `hooks.<Event>: [{hooks: [{type, command}]}]`. */
export interface HookGroup {
  hooks: Array<{ type: 'command'; command: string; timeout?: number }>;
}

/** A group is Axle's when one of its commands runs axle-hook. */
const isOurs = (group: unknown): boolean =>
  Array.isArray((group as HookGroup | undefined)?.hooks) &&
  (group as HookGroup).hooks.some((h) => typeof h?.command === 'string' && h.command.includes('axle-hook'));

/** Installs (or refreshes) Axle's group under each event, leaving every other hook as it is. */
export function installHooks(text: string | undefined, events: string[], group: HookGroup): EditOutcome {
  let source = text ?? '';
  const first = parseJsonc(source);
  if (!first.ok) return { kind: 'corrupt', reason: first.reason };
  for (const event of events) {
    const twice = duplicateOnPath(first.root, ['hooks', event]);
    if (twice) return { kind: 'conflict', reason: `"${twice}" appears more than once` };
  }
  const hooksNode = nodeAt(first.root, ['hooks']);
  if (hooksNode && hooksNode.type !== 'object') return { kind: 'conflict', reason: '"hooks" is not an object' };
  let changed = false;
  for (const event of events) {
    const parsed = parseJsonc(source);
    if (!parsed.ok) return { kind: 'corrupt', reason: parsed.reason };
    const list = valueAt(parsed.root, ['hooks', event]);
    if (list === undefined) {
      source = setAt(source, ['hooks', event], [group]);
      changed = true;
      continue;
    }
    if (!Array.isArray(list)) return { kind: 'conflict', reason: `"hooks.${event}" is not a list` };
    const index = list.findIndex(isOurs);
    if (index >= 0 && sameJson(list[index], group)) continue;
    source =
      index >= 0
        ? setAt(source, ['hooks', event, index], group)
        : setAt(source, ['hooks', event, list.length], group, true);
    changed = true;
  }
  return changed ? { kind: 'changed', text: source } : { kind: 'unchanged' };
}

/** Removes Axle's groups; an event list or hooks object left empty by that goes too. */
export function removeHooks(text: string, events: string[]): EditOutcome {
  let source = text;
  const first = parseJsonc(source);
  if (!first.ok) return { kind: 'corrupt', reason: first.reason };
  let changed = false;
  for (const event of events) {
    for (;;) {
      const parsed = parseJsonc(source);
      if (!parsed.ok) return { kind: 'corrupt', reason: parsed.reason };
      const list = valueAt(parsed.root, ['hooks', event]);
      if (!Array.isArray(list)) break;
      const index = list.findIndex(isOurs);
      if (index < 0) break;
      source = list.length === 1 ? deleteAt(source, ['hooks', event]) : deleteAt(source, ['hooks', event, index]);
      changed = true;
    }
  }
  if (changed) {
    const parsed = parseJsonc(source);
    const hooks = parsed.ok ? valueAt(parsed.root, ['hooks']) : undefined;
    if (hooks && typeof hooks === 'object' && Object.keys(hooks).length === 0) source = deleteAt(source, ['hooks']);
  }
  return changed ? { kind: 'changed', text: source } : { kind: 'unchanged' };
}

/** The axle-hook commands installed under each event (for `axle status`). */
export function installedHookCommands(text: string, events: string[]): Record<string, string[]> {
  const parsed = parseJsonc(text);
  const out: Record<string, string[]> = {};
  for (const event of events) {
    const list = parsed.ok ? valueAt(parsed.root, ['hooks', event]) : undefined;
    out[event] = Array.isArray(list)
      ? list
          .filter(isOurs)
          .flatMap((g: HookGroup) => g.hooks.map((h) => h.command).filter((c) => c.includes('axle-hook')))
      : [];
  }
  return out;
}
