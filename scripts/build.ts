/**
 * Builds the CLI to JavaScript (issue 11 item 1): `npm run build`, and npm's `prepare` (so
 * `npm ci` builds it). Output in `dist/cli/`: `main.cjs`, one CommonJS bundle of src/cli/main.ts
 * with every module and dependency (source map beside it); `main.code-cache`, V8's bytecode of
 * the functions a quickstart run compiles (bin/built-cli.js); and last `stamp.json`, the
 * fingerprint of the sources (bin/fingerprint.js) that `bin/warpstate.js` compares before it
 * runs the build.
 *
 * Why one CommonJS file: Node then reads one file instead of resolving some 600 modules (zod
 * alone is 95), and Node 20 can feed a CommonJS script, not an ES module, to V8 with a code
 * cache (measured: 0.38 -> 0.25 CPU s to the first event of the quickstart). The `import()`s of
 * main.ts stay lazy: esbuild wraps each imported module in an initializer run on first import,
 * so `config show` still never runs the engine's or xstate's module code. `import.meta.url` is
 * the bundle's own URL; `dist/cli` sits two levels below the repository root, as `src/cli`
 * does, so `../../package.json` from main.ts resolves the same in both.
 *
 * machines/index.ts discovers its unit folders at run time (readdir + `import()` of
 * `machines/<folder>/<folder>.ts`), which a bundle cannot follow; the build replaces that module
 * with its static equivalent: the same folders in the same (name) order, found when the build
 * runs. A new unit folder changes the fingerprint, so the launcher falls back to the sources
 * until the next build.
 *
 * Usage: `tsx scripts/build.ts [--outdir <dir>]` (default `dist/cli`; tests build elsewhere).
 * Exits 1 with esbuild's messages when the bundle fails.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { sourceFingerprint, sourceStats } from '../bin/fingerprint.js';

/** Repository root (this file is `scripts/build.ts`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The exports of machines/index.ts the static replacement provides (checked at build time). */
const MACHINES_EXPORTS = ['builtinUnits', 'createUnitRegistry'];

/**
 * The unit folders of `machines/`, as machines/index.ts finds them: sub-folders holding
 * `<folder>/<folder>.ts`, in name order.
 */
export function unitFolders(root = REPO_ROOT): string[] {
  const dir = join(root, 'machines');
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .filter((f) => existsSync(join(dir, f, `${f}.ts`)));
}

/**
 * esbuild plugin: loads machines/index.ts as static imports of every unit folder, with the
 * registration rule of the original (exported values duck-typed as unit definitions, each once,
 * in folder order).
 * @throws Error when machines/index.ts exports names other than {@link MACHINES_EXPORTS}, so a
 *   change there cannot be silently dropped from the build
 */
function machinesPlugin(root: string): Plugin {
  const indexPath = join(root, 'machines', 'index.ts');
  return {
    name: 'warpstate-machines',
    setup(b) {
      b.onLoad({ filter: /[\\/]machines[\\/]index\.ts$/ }, (args) => {
        if (resolve(args.path) !== indexPath) return undefined;
        const source = readFileSync(indexPath, 'utf8');
        const exported = [...source.matchAll(/^export\s+(?:const|function|class|let)\s+(\w+)/gm)].map((m) => m[1]).sort();
        if (exported.join() !== [...MACHINES_EXPORTS].sort().join()) {
          throw new Error(`machines/index.ts exports ${exported.join(', ')}; scripts/build.ts replaces it with static imports providing ${MACHINES_EXPORTS.join(', ')}: update machinesPlugin`);
        }
        const folders = unitFolders(root);
        const lines = [
          '// machines/index.ts as built by scripts/build.ts: the unit folders found at build time, imported statically.',
          "import { UnitRegistry } from '../src/sim/unit.ts';",
          ...folders.map((f, i) => `import * as unit${i} from ${JSON.stringify(`./${f}/${f}.ts`)};`),
          `const modules = [${folders.map((_, i) => `unit${i}`).join(', ')}];`,
          'function isUnitDefinition(v) {',
          "  return typeof v === 'object' && v !== null && typeof v.kind === 'string' && typeof v.logic === 'function' && Array.isArray(v.ports) && Array.isArray(v.stats) && v.spec !== undefined;",
          '}',
          'const found = [];',
          'for (const mod of modules) for (const value of Object.values(mod)) if (isUnitDefinition(value) && !found.includes(value)) found.push(value);',
          'export const builtinUnits = found;',
          'export function createUnitRegistry() {',
          '  const registry = new UnitRegistry();',
          '  for (const def of builtinUnits) registry.register(def);',
          '  return registry;',
          '}',
        ];
        return { contents: lines.join('\n'), loader: 'js', resolveDir: dirname(indexPath) };
      });
    },
  };
}

/** The run whose compiled functions go into the code cache: the quickstart up to its first picosecond. */
export const CODE_CACHE_RUN = ['run', 'scenarios/quickstart.yaml', '--until', '1ps', '-q'];

/**
 * Runs {@link CODE_CACHE_RUN} on the bundle in `dir` in a child Node (the same binary and so the
 * same V8 as later starts) and writes `dir/main.code-cache`.
 * @throws Error when the child fails (its stderr in the message)
 */
function writeCodeCache(root: string, dir: string): void {
  const script = [
    `import { loadBuiltCli } from ${JSON.stringify(pathToFileURL(join(root, 'bin', 'built-cli.js')).href)};`,
    `const cli = loadBuiltCli(${JSON.stringify(dir)});`,
    `const code = await cli.exports.main(${JSON.stringify(CODE_CACHE_RUN)}, () => {}, (s) => void process.stderr.write(s));`,
    'cli.writeCodeCache();',
    'process.exitCode = code;',
  ].join('\n');
  const env = { ...process.env, WARPSTATE_CLI: '', WARPSTATE_STARTUP_CPU: '' };
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, env, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(join(dir, 'main.code-cache'))) throw new Error(`the code-cache run (warpstate ${CODE_CACHE_RUN.join(' ')}) failed with exit ${r.status}: ${r.stderr}`);
}

/** What {@link buildCli} wrote. */
export interface BuildResult {
  /** The output folder (absolute). */
  readonly outdir: string;
  /** The source fingerprint written to `stamp.json`. */
  readonly fingerprint: string;
  /** Number of input files bundled (sources and dependencies). */
  readonly inputs: number;
}

/**
 * Bundles src/cli/main.ts into `outdir` (replaced whole: the new build is written beside it and
 * renamed into place, so a reader never sees half a build) and writes `stamp.json` last.
 * @param outdir output folder (default `<root>/dist/cli`)
 * @throws Error when esbuild reports errors, or a bundled file lies outside src/, machines/ and
 *   node_modules/ (it would escape the fingerprint)
 */
export async function buildCli(root = REPO_ROOT, outdir = join(root, 'dist', 'cli')): Promise<BuildResult> {
  // Stats first: a file written after them fails the launcher's fast check and is then hashed.
  const stats = sourceStats(root);
  const fingerprint = sourceFingerprint(root);
  const tmp = `${outdir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(root, 'src', 'cli', 'main.ts')],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outfile: join(tmp, 'main.cjs'),
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [machinesPlugin(root)],
    define: { 'import.meta.url': '__warpstateImportMetaUrl' },
    banner: { js: 'var __warpstateImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  const inputs = Object.keys(result.metafile.inputs);
  const outside = inputs.filter((p) => !/^(src|machines|node_modules)\//.test(p.replace(/\\/g, '/')));
  if (outside.length > 0) throw new Error(`bundled files outside the fingerprinted folders: ${outside.join(', ')}`);
  writeCodeCache(root, tmp);
  writeFileSync(join(tmp, 'stamp.json'), JSON.stringify({ fingerprint, inputs: inputs.length, stats }, null, 1) + '\n');
  mkdirSync(dirname(outdir), { recursive: true });
  rmSync(outdir, { recursive: true, force: true });
  renameSync(tmp, outdir);
  return { outdir, fingerprint, inputs: inputs.length };
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const at = process.argv.indexOf('--outdir');
  const outdir = at >= 0 && process.argv[at + 1] !== undefined ? resolve(process.argv[at + 1]!) : undefined;
  try {
    const r = await buildCli(REPO_ROOT, outdir);
    process.stdout.write(`built ${relative(process.cwd(), r.outdir) || '.'}/main.cjs from ${r.inputs} files, with its code cache (sources ${r.fingerprint.slice(0, 12)})\n`);
  } catch (e) {
    process.stderr.write(`build failed: ${(e as Error).message}\n`);
    process.exitCode = 1;
  }
}
