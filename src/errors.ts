/**
 * Typed errors shared by every part of warpstate.
 *
 * Bad input (a scenario, a config, a PTX file, a trace) is reported with an {@link InputError}
 * that names the file, line and field, so the CLI can print one clear line and exit 2 instead of
 * a stack trace. Failures of the simulated machine itself (deadlock, impossible launch) use
 * {@link SimulationError}.
 */

/** Where in an input file a problem was found. Lines and columns are 1-based. */
export interface SourceLocation {
  /** Path of the file as the user gave it, or a pseudo-name such as `<inline>`. */
  readonly file: string;
  /** 1-based line number, when known. */
  readonly line?: number;
  /** 1-based column number, when known. */
  readonly column?: number;
}

/**
 * A problem with user-supplied input. `field` is a dotted path for structured files
 * (`launches[0].grid`) or the offending token for text formats (an opcode, a register name).
 *
 * The message is formatted as `file:line:column: field: reason`, omitting unknown parts.
 */
export class InputError extends Error {
  /** Input file, as given by the user. */
  readonly file: string;
  /** 1-based line, if known. */
  readonly line: number | undefined;
  /** 1-based column, if known. */
  readonly column: number | undefined;
  /** Field path or offending token, if known. */
  readonly field: string | undefined;
  /** The reason alone, without location. */
  readonly reason: string;

  constructor(location: SourceLocation, reason: string, field?: string) {
    super(formatInputError(location, reason, field));
    this.name = 'InputError';
    this.file = location.file;
    this.line = location.line;
    this.column = location.column;
    this.field = field;
    this.reason = reason;
  }
}

/** Formats `file:line:column: field: reason`, leaving out the parts that are unknown. */
export function formatInputError(location: SourceLocation, reason: string, field?: string): string {
  let where = location.file;
  if (location.line !== undefined) where += `:${location.line}`;
  if (location.line !== undefined && location.column !== undefined) where += `:${location.column}`;
  return field ? `${where}: ${field}: ${reason}` : `${where}: ${reason}`;
}

/**
 * A failure of the simulated machine that is not the user's syntax: a deadlock, a launch the
 * GPU cannot hold, an invariant broken by a unit. `details` is a structured report that the CLI
 * prints and writes beside the partial statistics.
 */
export class SimulationError extends Error {
  /** Structured report (units, buffers, messages involved). */
  readonly details: unknown;

  constructor(message: string, details?: unknown) {
    super(message);
    this.name = 'SimulationError';
    this.details = details;
  }
}
