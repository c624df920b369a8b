/** Types of bin/built-cli.js (plain JavaScript, so the launcher needs no TypeScript loader). */
export interface BuiltCli {
  /** The bundle's exports: those of src/cli/main.ts. */
  readonly exports: { main(argv: readonly string[]): Promise<number> };
  /** True when no code cache was read or V8 refused it (the bundle was compiled from source). */
  readonly cacheRejected: boolean;
  /** Writes the bytecode compiled so far to `<dir>/main.code-cache`. */
  writeCodeCache(): void;
}
/**
 * Evaluates `<dir>/main.cjs` with V8's code cache `<dir>/main.code-cache` when it is accepted.
 * @param dir the build folder (absolute path)
 */
export declare function loadBuiltCli(dir: string): BuiltCli;
