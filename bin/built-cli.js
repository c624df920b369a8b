/**
 * Loads the built CLI (`dist/cli/main.cjs`, scripts/build.ts) with V8's code cache
 * (`main.code-cache`): the bytecode of every function the quickstart compiles, written by the
 * build, so a start skips most parsing and compiling (about 0.14 of 0.38 CPU s, issue 11). V8
 * checks the cache against its version, flags and the source, and compiles normally when it
 * rejects it; the build writes bundle and cache into one folder that replaces the old one whole.
 *
 * Plain JavaScript: it runs before any TypeScript loader exists.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

/**
 * Evaluates `<dir>/main.cjs` (a CommonJS bundle) in this process.
 * @param dir the build folder (absolute path)
 * @returns the bundle's exports (`main`, `buildProgram`, ...) and `writeCodeCache()`, which
 *   writes the bytecode compiled so far to `<dir>/main.code-cache` (the build calls it after a run)
 * @throws Error (ENOENT) when the bundle is missing
 */
export function loadBuiltCli(dir) {
  const file = join(dir, 'main.cjs');
  const source = readFileSync(file, 'utf8');
  let cachedData;
  try {
    cachedData = readFileSync(join(dir, 'main.code-cache'));
  } catch {
    cachedData = undefined;
  }
  // Code restored from a V8 code cache has no dynamic import(), so ESM-only packages the
  // bundle loads at run time (vega, vega-lite: src/report/figures.ts) use this module's.
  globalThis[Symbol.for('warpstate.import')] = (specifier) => import(specifier);
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(pathToFileURL(file)), mod, file, dir);
  return {
    exports: mod.exports,
    cacheRejected: cachedData === undefined || script.cachedDataRejected === true,
    writeCodeCache: () => writeFileSync(join(dir, 'main.code-cache'), script.createCachedData()),
  };
}
