import { Errors } from '@oclif/core';

/** Exit codes every command shares; scripts branch on these. */
export const EXIT = {
  OK: 0,
  /** Anything unexpected, or the server answered with an error. */
  FAILED: 1,
  /** Bad flags or arguments (oclif's own parse errors use 2 as well). */
  USAGE: 2,
  /** Not signed in, or the server refused the stored key. */
  AUTH: 3,
  /** The server could not be reached. */
  UNREACHABLE: 4,
  /** Done in part: some clients, items or checks failed; the output says which. */
  PARTIAL: 5,
  /** A confirmation was declined, or needed and no terminal was there to ask. */
  DECLINED: 6,
  /** Ctrl-C at a question, as a shell reports a command SIGINT stopped (128 + 2). */
  INTERRUPTED: 130,
} as const;

/** An error with the exit code it should end the process with. */
export const fail = (message: string, exit: number): never => {
  throw new Errors.CLIError(message, { exit });
};
