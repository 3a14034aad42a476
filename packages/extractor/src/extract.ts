import { captureDisabled } from './daemon/kill-switch.js';
import { defaultPaths } from './paths.js';
import { type PipelineOptions, runPipeline } from './pipeline/run.js';
import { type ReadFileOptions, readTranscriptFile } from './readers/file.js';
import type { FlushReport, Submitter } from './submit/client.js';
import type { ExtractionResult } from './types.js';

export interface ExtractFileOptions extends PipelineOptions {
  read?: ReadFileOptions;
  /** When given, drafts are queued and sent; otherwise they are only returned. */
  submitter?: Submitter;
  /** Defaults to `~/.axle/DISABLED`. */
  killSwitchPath?: string;
}

export interface ExtractFileResult {
  /** Absent when the kill switch was on at the start: nothing was read. */
  extraction?: ExtractionResult;
  submission?: FlushReport;
  disabled: boolean;
}

/**
 * One transcript file end to end, as the session-end hook and `axle extract FILE` run it: kill switch,
 * streaming read, pipeline, then queue and send. Reader issues join the result's errors under
 * `read:<kind>` so the caller reports a single list.
 */
export async function extractFile(path: string, opts: ExtractFileOptions): Promise<ExtractFileResult> {
  if (await captureDisabled(opts.killSwitchPath ?? defaultPaths().killSwitch)) return { disabled: true };
  const read = await readTranscriptFile(path, opts.read);
  const extraction = await runPipeline(read.conversation, opts);
  extraction.errors.unshift(...read.issues.map((i) => ({ stage: `read:${i.kind}`, chunk: -1, message: i.message })));
  if (!opts.submitter || extraction.learnings.length === 0) return { extraction, disabled: false };
  // Switched on while the transcript was being extracted: nothing is queued or sent.
  if (await captureDisabled(opts.killSwitchPath ?? defaultPaths().killSwitch)) return { extraction, disabled: true };
  const submission = await opts.submitter.submit(extraction.learnings, extraction.source);
  return { extraction, submission, disabled: false };
}
