/**
 * Loading a sweep file into a plan: the validated spec, its axes, and every point with the
 * command line that runs it and the hash of its full inputs (issue 12 item 2).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as yamlStringify } from 'yaml';
import { InputError } from '../errors.ts';
import { loadScenario } from '../scenario/loader.ts';
import { YamlSource, type DocPath } from '../scenario/yaml-source.ts';
import { axisValue, expandGrid, GridError, pointId, type Axis, type GridPoint } from './grid.ts';
import { SweepExpr } from './expr.ts';
import { RESERVED_COLUMNS, sweepSchema, type SweepSpec } from './schema.ts';

/** One point to run. */
export interface PlannedPoint {
  /** Readable id: `base/axis=label/...`. */
  readonly id: string;
  /** SHA-256 (hex) of the full inputs: warpstate version and sources (not the commit: a commit of docs or tests changes no result), scenario and kernel files, overrides, seed, limits. */
  readonly hash: string;
  readonly base: string;
  /** Every axis label, `base` and `seed` included. */
  readonly point: GridPoint;
  /** The swept axes' labels (not base, not seed). */
  readonly overrides: Record<string, string>;
  readonly seed: number;
  /** Scenario file the point runs (absolute; for a trace base, a generated one in the results directory). */
  readonly scenario: string;
  /** SHA-256 of the scenario file and the files it reads (PTX, trace directory, gpgpusim.config). */
  readonly scenarioHash: string;
  /** Every scenario override (`run --set`), sweep-wide first. */
  readonly set: readonly string[];
  /** Every config override (`run --config-set`), sweep-wide first. */
  readonly configSet: readonly string[];
  /** Arguments after `bin/warpstate.js`, the stats file excluded (the executor adds `--stats`). */
  readonly args: readonly string[];
}

/** warpstate's version, git commit (null outside a git checkout) and source fingerprint. */
export interface Provenance {
  readonly version: string;
  readonly commit: string | null;
  /**
   * SHA-256 of every source file (src/, machines/, package files): uncommitted edits of the
   * simulator change it, so cached points are rerun.
   */
  readonly sources: string;
}

/** A loaded sweep. */
export interface SweepPlan {
  /** The sweep file as given. */
  readonly file: string;
  /** The results directory (absolute). */
  readonly dir: string;
  readonly spec: SweepSpec;
  /** Axes in grid order: base, the file's axes, seed (when `seeds` is given). */
  readonly axes: readonly Axis[];
  readonly points: readonly PlannedPoint[];
  /** Column -> statistic name (or `*` glob) to collect. */
  readonly collect: Readonly<Record<string, string>>;
  readonly provenance: Provenance;
}

/** The repository root (the folder of warpstate's package.json), from this module's location; works from src/ and from the dist/ bundle. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pj = join(dir, 'package.json');
    if (existsSync(pj)) {
      try {
        if (JSON.parse(readFileSync(pj, 'utf8')).name === 'warpstate') return dir;
      } catch {
        // not ours: keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('warpstate package root not found');
    dir = up;
  }
}

/**
 * SHA-256 of the simulator's sources: the sorted paths and contents of every file under src/ and
 * machines/ and of package.json and package-lock.json (the files bin/fingerprint.js covers; that
 * module is outside the CLI bundle, so this is computed here). About 15 ms.
 */
function sourcesHash(root: string): string {
  const files: string[] = [];
  for (const d of ['src', 'machines']) {
    for (const f of readdirSync(join(root, d), { recursive: true, encoding: 'utf8' })) {
      const rel = join(d, f);
      if (statSync(join(root, rel)).isFile()) files.push(rel);
    }
  }
  files.push('package.json', 'package-lock.json');
  const h = createHash('sha256');
  for (const f of files.sort()) {
    h.update(f + '\0');
    try {
      h.update(readFileSync(join(root, f)));
    } catch {
      h.update('missing');
    }
    h.update('\0');
  }
  return h.digest('hex');
}

/** Version from package.json, `git rev-parse HEAD` of the package root, and the sources' fingerprint. */
export function provenance(): Provenance {
  const root = packageRoot();
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
  let commit: string | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    commit = null;
  }
  return { version, commit, sources: sourcesHash(root) };
}

/** A value as the text of a `key=value` override (YAML reads JSON back). */
function overrideText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** SHA-256 of files' paths and contents (a missing file hashes as missing: the run will say why). */
class InputHasher {
  private readonly cache = new Map<string, string>();
  file(path: string): string {
    let h = this.cache.get(path);
    if (h === undefined) {
      const hash = createHash('sha256');
      try {
        const st = statSync(path);
        if (st.isDirectory()) {
          for (const name of readdirSync(path).sort()) hash.update(name + '\0' + this.file(join(path, name)) + '\0');
        } else hash.update(readFileSync(path));
      } catch {
        hash.update('missing');
      }
      h = hash.digest('hex');
      this.cache.set(path, h);
    }
    return h;
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Loads a sweep file and plans its points. Each point's scenario overrides are validated against
 * the scenario schema here, and its config overrides against the GPU config schema, so a bad
 * value exits 2 before anything runs.
 * @param file the sweep file (YAML/JSON)
 * @param outDir the results directory (default `out/sweeps/<name>`; trace bases get a generated
 *   scenario file in its `bases/`)
 * @throws InputError naming the sweep file, line and field: schema errors, unknown or reserved
 *   names, grid errors, expressions that do not parse or name unknown columns, overrides the
 *   scenario or config schema refuses
 */
export async function loadSweep(file: string, outDir?: string): Promise<SweepPlan> {
  const source = YamlSource.read(file, 'a sweep');
  if (source.value === null || typeof source.value !== 'object' || Array.isArray(source.value)) {
    throw new InputError({ file, line: 1 }, 'a sweep must be a mapping (name, bases, axes, collect, ...)');
  }
  const spec = source.validate(sweepSchema);
  const at = (path: DocPath, msg: string, key?: string): InputError => {
    const fieldPath = key !== undefined ? [...path, key] : path;
    return new InputError(source.locate(path, key), msg, fieldPath.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '['));
  };
  const sweepDir = dirname(file);
  const dir = resolve(outDir ?? join('out', 'sweeps', spec.name));

  // Axes: base, the file's axes, seed.
  for (const name of Object.keys(spec.axes)) {
    if ((RESERVED_COLUMNS as readonly string[]).includes(name)) throw at(['axes'], `'${name}' is a column of the results table; name the axis otherwise`, name);
  }
  const axes: Axis[] = [{ name: 'base', target: { kind: 'base' }, labels: Object.keys(spec.bases), values: Object.keys(spec.bases) }];
  for (const [name, a] of Object.entries(spec.axes)) {
    const entries = Array.isArray(a.values) ? a.values.map((v) => [String(v), v] as const) : Object.entries(a.values);
    const labels = entries.map(([l]) => l);
    const dup = labels.find((l, i) => labels.indexOf(l) !== i);
    if (dup !== undefined) throw at(['axes', name, 'values'], `label '${dup}' appears twice`);
    axes.push({ name, target: a.configSet !== undefined ? { kind: 'config', key: a.configSet } : { kind: 'scenario', key: a.set! }, labels, values: entries.map(([, v]) => v) });
  }
  if (spec.seeds !== undefined) axes.push({ name: 'seed', target: { kind: 'seed' }, labels: spec.seeds.map(String), values: spec.seeds });

  // Columns.
  const collect: Record<string, string> = Array.isArray(spec.collect) ? Object.fromEntries(spec.collect.map((s) => [s, s])) : { ...spec.collect };
  const columns = new Set<string>();
  for (const col of Object.keys(collect)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(col)) throw at(['collect'], `'${col}' is not an identifier: give it a column name (collect: { name: ${col} })`);
    if ((RESERVED_COLUMNS as readonly string[]).includes(col) || spec.axes[col] !== undefined) throw at(['collect'], `column '${col}' clashes with an axis or a column of the table`, col);
    columns.add(col);
  }
  let points: GridPoint[];
  try {
    points = expandGrid(axes, spec.zip, spec.include.map((p) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)]))));
  } catch (e) {
    if (e instanceof GridError) throw at(e.path, e.message);
    throw e;
  }
  const labelsOf = new Map(axes.map((a) => [a.name, new Set(points.map((p) => p[a.name]!))]));
  const checkExpr = (text: string, path: DocPath, known: Set<string>): void => {
    let e: SweepExpr;
    try {
      e = new SweepExpr(text);
    } catch (err) {
      throw at(path, `expression does not parse: ${(err as Error).message.split('\n').join(' ')}`);
    }
    for (const ref of e.references) {
      if (!known.has(ref.column)) throw at(path, `'${ref.column}' is not a column (columns: ${[...known].join(', ')})`);
      for (const [ax, label] of Object.entries(ref.select)) {
        const labels = labelsOf.get(ax);
        if (labels === undefined) throw at(path, `'${ax}' is not an axis (axes: ${axes.map((a) => a.name).join(', ')})`);
        if (!labels.has(label)) throw at(path, `axis '${ax}' has no label '${label}' (labels: ${[...labels].join(', ')})`);
      }
    }
    // A dry run on a made-up row finds unknown plain names.
    const row = { id: '', point: points[0]!, values: Object.fromEntries([...known].map((c) => [c, 1])) };
    try {
      e.evaluate({ find: () => row, axes, rows: [row] } as never, row);
    } catch (err) {
      const m = /unknown name '([^']*)'/.exec((err as Error).message);
      if (m !== null) throw at(path, `'${m[1]}' is not a column or axis (columns: ${[...known].join(', ')}; axes: ${axes.map((a) => a.name).join(', ')})`);
    }
  };
  for (const [name, text] of Object.entries(spec.derived)) {
    if ((RESERVED_COLUMNS as readonly string[]).includes(name) || columns.has(name) || spec.axes[name] !== undefined) throw at(['derived'], `column '${name}' clashes with an axis or another column`, name);
    checkExpr(text, ['derived', name], columns);
    columns.add(name);
  }
  spec.checks.forEach((c, i) => checkExpr(typeof c === 'string' ? c : c.expr, typeof c === 'string' ? ['checks', i] : ['checks', i, 'expr'], columns));
  if (spec.figures.length > 0) {
    const { figureSpecSchema } = await import('../report/figures.ts');
    spec.figures.forEach((f, i) => {
      // `where` (the sweep's own field) picks the rows a figure shows; the rest is the figure spec.
      const { where, ...fig } = (f ?? {}) as { where?: unknown };
      if (where !== undefined) {
        if (where === null || typeof where !== 'object' || Array.isArray(where)) throw at(['figures', i, 'where'], 'expected a map axis -> label');
        for (const [ax, label] of Object.entries(where)) {
          if (!labelsOf.has(ax)) throw at(['figures', i, 'where'], `'${ax}' is not an axis (axes: ${axes.map((a) => a.name).join(', ')})`, ax);
          if (!labelsOf.get(ax)!.has(String(label))) throw at(['figures', i, 'where'], `axis '${ax}' has no label '${label}'`, ax);
        }
      }
      source.validate(figureSpecSchema, fig, ['figures', i]);
    });
  }

  // Bases: the scenario file each runs.
  const prov = provenance();
  const hasher = new InputHasher();
  const baseFiles = new Map<string, { scenario: string; extra: string[] }>();
  for (const [name, b] of Object.entries(spec.bases)) {
    if ('scenario' in b) {
      const path = resolve(sweepDir, b.scenario);
      if (!existsSync(path)) throw at(['bases', name, 'scenario'], `scenario file not found: ${path}`);
      baseFiles.set(name, { scenario: path, extra: [] });
    } else {
      const traceDir = resolve(sweepDir, b.trace);
      if (!existsSync(join(traceDir, 'kernelslist.g'))) throw at(['bases', name, 'trace'], `no kernelslist.g in ${traceDir} (not an Accel-Sim trace directory)`);
      const gpuFile = resolve(sweepDir, b.gpu);
      const gpu = existsSync(gpuFile) && statSync(gpuFile).isFile() ? { gpgpusimConfig: gpuFile } : { preset: b.gpu };
      const generated = join(dir, 'bases', `${name}.yaml`);
      mkdirSync(dirname(generated), { recursive: true });
      const text = `# generated by warpstate sweep from ${file} (base ${name})\n` + yamlStringify({ name, mode: 'timing', gpu, accelsimTrace: { dir: traceDir, unknownOpcode: b.unknownOpcode } });
      writeFileSync(generated, text);
      baseFiles.set(name, { scenario: generated, extra: [traceDir, ...('gpgpusimConfig' in gpu ? [gpuFile] : [])] });
    }
  }

  const configMod = await import('../config/index.ts');
  const { applyConfigOverrides } = await import('../config/overrides.ts');
  const planned: PlannedPoint[] = [];
  for (const p of points) {
    const base = p.base!;
    const bf = baseFiles.get(base)!;
    const set = [...spec.set];
    const configSet = [...spec.configSet];
    const overrides: Record<string, string> = {};
    for (const a of axes) {
      if (a.target.kind === 'config') configSet.push(`${a.target.key}=${overrideText(axisValue(a, p[a.name]!))}`);
      if (a.target.kind === 'scenario') set.push(`${a.target.key}=${overrideText(axisValue(a, p[a.name]!))}`);
      if (a.target.kind === 'config' || a.target.kind === 'scenario') overrides[a.name] = p[a.name]!;
    }
    const id = pointId(axes, p);
    const where = (e: unknown): InputError => {
      const axis = axes.find((a) => a.target.kind !== 'base' && a.target.kind !== 'seed' && (e as InputError).message.includes((a.target as { key: string }).key));
      const loc = axis !== undefined ? ['axes', axis.name] : ['bases', base];
      return at(loc, `point ${id}: ${(e as Error).message}`);
    };
    let seed: number;
    let extra = [...bf.extra];
    try {
      const seedLabel = p.seed;
      const loaded = loadScenario(bf.scenario, seedLabel !== undefined ? [...set, `seed=${seedLabel}`] : set);
      seed = loaded.scenario.seed;
      for (const l of loaded.scenario.launches) extra.push(resolve(loaded.baseDir, l.ptx));
      const gpu = loaded.scenario.gpu;
      if (gpu !== undefined) {
        const gspec = gpu.preset ?? resolve(loaded.baseDir, gpu.gpgpusimConfig!);
        if (gpu.gpgpusimConfig !== undefined) extra.push(gspec);
        applyConfigOverrides(configMod.resolveGpuConfig(gspec).config, [...gpu.set, ...configSet]);
      } else if (configSet.length > 0 && loaded.scenario.launches.length > 0 && (loaded.scenario.mode ?? 'timing') === 'timing') {
        applyConfigOverrides(configMod.resolveGpuConfig('gtx480').config, configSet);
      }
    } catch (e) {
      if (e instanceof InputError) throw where(e);
      throw e;
    }
    extra = [...new Set(extra)];
    const scenarioHash = sha256(JSON.stringify([hasher.file(bf.scenario), ...extra.map((f) => [relative(sweepDir, f), hasher.file(f)])]));
    const args = ['run', bf.scenario, ...set.flatMap((s) => ['--set', s]), ...configSet.flatMap((c) => ['--config-set', c]), '--seed', String(seed), ...(spec.maxCycles !== undefined ? ['--max-cycles', String(spec.maxCycles)] : []), '-q'];
    const hash = sha256(JSON.stringify({ version: prov.version, sources: prov.sources, scenarioHash, set, configSet, seed, maxCycles: spec.maxCycles ?? null }));
    planned.push({ id, hash, base, point: p, overrides, seed, scenario: bf.scenario, scenarioHash, set, configSet, args });
  }
  return { file, dir, spec, axes, points: planned, collect, provenance: prov };
}
