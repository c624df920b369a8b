/**
 * PTX front-end survey (issue 10): which kernels of real benchmark suites warpstate loads.
 *
 * For every `.ptx` file under the given directories, the module is loaded exactly as a kernel
 * scenario loads it before running (`src/scenario/kernel-run.ts`): {@link parsePtx}, then one
 * {@link FunctionalKernel} per `.entry` (which compiles the entry for the functional model, lays
 * out its shared memory, places the module's globals and fills its parameters). Each kernel is
 * classified as loaded or refused; a refusal of the whole module counts against every entry of it.
 *
 * Suites: a file at `<dir>/<suite>/<benchmark>/x.ptx` (three or more path components below a
 * given directory) belongs to `<suite>`; otherwise to the given directory's own name. A
 * `<name>.nvcc-failed` file beside the sources (written by the build script) counts that source
 * as "not compiled" (not a warpstate failure).
 *
 * Blockers: after the first refusal, the line it names is blanked and the module loaded again,
 * repeatedly, to list further unsupported features of the same kernel (an approximation of
 * "this feature is the only blocker"; only later refusals that say "not supported" count, others
 * are cascades of the removal and end the search).
 *
 * Run: `npx tsx scripts/ptx-survey.ts <dir>... [--json out.json] [--no-blockers]`.
 * A script, not run by tests.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { InputError } from '../src/errors.ts';
import { FunctionalKernel, GlobalMemory } from '../src/functional/index.ts';
import { parsePtx, type PtxModule } from '../src/isa/index.ts';

/** Outcome of loading one kernel. */
export interface KernelRecord {
  /** Suite name (first directory level below a given directory). */
  readonly suite: string;
  /** PTX file, relative to the directory it was found under. */
  readonly file: string;
  /** Kernel (`.entry`) name as in the PTX. */
  readonly kernel: string;
  /** True when the mangled name carries template arguments. */
  readonly template: boolean;
  /** `loaded`, `refused` (clean InputError) or `crashed` (any other exception). */
  readonly status: 'loaded' | 'refused' | 'crashed';
  /** The refusal or exception message (empty when loaded). */
  readonly message: string;
  /** The refusal grouped as a feature (names, numbers and positions stripped). */
  readonly feature?: string;
  /** Whole module refused (parse) rather than this entry (compile/prepare). */
  readonly moduleLevel?: boolean;
  /** True when the InputError names a line. */
  readonly hasLine?: boolean;
  /** Features found by blanking refused lines and loading again (first is {@link feature}). */
  readonly blockers?: readonly string[];
  /** Top of the stack, for crashes. */
  readonly stack?: string;
}

/** A source that did not compile to PTX (marker file written by the build script). */
export interface NotCompiledRecord {
  readonly suite: string;
  readonly file: string;
  readonly reason: string;
}

const MAX_BLOCKER_ROUNDS = 25;
/** Modules larger than this are not searched for further blockers (parse time). */
const MAX_BLOCKER_TEXT = 4 << 20;

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else out.push(p);
  }
}

function suiteOf(root: string, file: string): string {
  const parts = relative(root, file).split(sep);
  return parts.length >= 3 ? parts[0]! : basename(resolve(root));
}

/**
 * True when an Itanium-mangled name has template arguments on the function name
 * (`_Z6kernelIfEvPT_`, `_ZN2ns6kernelILi4EEEvPf`).
 */
export function isTemplateName(name: string): boolean {
  if (!name.startsWith('_Z')) return false;
  let i = 2;
  if (name[i] === 'L') i++;
  const readSource = (): boolean => {
    const m = /^\d+/.exec(name.slice(i));
    if (!m) return false;
    i += m[0].length + Number(m[0]);
    return true;
  };
  if (name[i] === 'N') {
    i++;
    while (i < name.length && 'rVKRO'.includes(name[i]!)) i++;
    while (i < name.length && name[i] !== 'E') {
      if (name[i] === 'I') return true;
      if (name.startsWith('St', i)) i += 2;
      else if (name[i] === 'S') {
        const e = name.indexOf('_', i);
        if (e < 0) return false;
        i = e + 1;
      } else if (!readSource()) return false;
    }
    return false;
  }
  if (!readSource()) return false;
  return name[i] === 'I';
}

/** Groups a refusal reason into a feature: quoted names, registers and numbers stripped. */
export function featureOf(reason: string): string {
  return reason
    .replace(/\(call to '[^']*'\)/g, '(call to <f>)')
    .replace(/'(_Z|__|\$)[^']*'/g, "'<name>'")
    .replace(/kernel '[^']*'/g, "kernel '<name>'")
    .replace(/(variable|symbol|function|reference|register|label|parameter|kernel) '[^']*'/g, "$1 '<name>'")
    .replace(/%[A-Za-z_][\w$]*/g, '%r')
    .replace(/\b\d+\b/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();
}

const ENTRY_RE = /\.entry\s+([A-Za-z_$%][\w$]*)/g;

function entryNames(text: string): string[] {
  return [...text.matchAll(ENTRY_RE)].map((m) => m[1]!);
}

/** Loads one entry as a scenario would (throws what the loader throws). */
function prepare(mod: PtxModule, entry: string, file: string): void {
  const fn = mod.functions[mod.functionByName.get(entry)!]!;
  new FunctionalKernel({
    module: mod,
    entry,
    grid: 1,
    block: 1,
    args: fn.params.map((p) => new Uint8Array(p.sizeBytes)),
    memory: new GlobalMemory(),
    file,
    deviceOutput: () => {},
  });
}

type Attempt = { ok: true } | { ok: false; error: unknown; moduleLevel: boolean };

function attempt(text: string, file: string, entry: string | undefined): Attempt {
  let mod: PtxModule;
  try {
    mod = parsePtx(text, file);
  } catch (error) {
    return { ok: false, error, moduleLevel: true };
  }
  if (entry === undefined) return { ok: true };
  try {
    prepare(mod, entry, file);
    return { ok: true };
  } catch (error) {
    return { ok: false, error, moduleLevel: false };
  }
}

/** Blanks line `line` (1-based) of `lines` in place. */
function blank(lines: string[], line: number): boolean {
  if (line < 1 || line > lines.length || lines[line - 1]!.trim() === '') return false;
  lines[line - 1] = '';
  return true;
}

/** Further features blocking `entry` (or the module when undefined) after the first refusal. */
function moreBlockers(text: string, file: string, entry: string | undefined, first: InputError): string[] {
  const found: string[] = [];
  if (text.length > MAX_BLOCKER_TEXT || first.line === undefined) return found;
  const lines = text.split('\n');
  let at = first.line;
  for (let round = 0; round < MAX_BLOCKER_ROUNDS; round++) {
    if (!blank(lines, at)) break;
    const r = attempt(lines.join('\n'), file, entry);
    if (r.ok) break;
    if (!(r.error instanceof InputError) || r.error.line === undefined) break;
    if (!/not supported|unsupported/.test(r.error.reason)) break; // cascade of the removal
    const f = featureOf(r.error.reason);
    if (!found.includes(f)) found.push(f);
    at = r.error.line;
  }
  return found;
}

function stackTop(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  return (e.stack ?? '').split('\n').slice(0, 4).map((s) => s.trim()).join(' | ');
}

/** Surveys one PTX file. */
export function surveyFile(path: string, suite: string, shown: string, blockers: boolean): KernelRecord[] {
  const text = readFileSync(path, 'utf8');
  const names = entryNames(text);
  const out: KernelRecord[] = [];
  const refusal = (e: unknown, moduleLevel: boolean, entry: string | undefined) => {
    if (e instanceof InputError) {
      const feature = featureOf(e.reason);
      const more = blockers ? moreBlockers(text, shown, entry, e) : [];
      return { status: 'refused' as const, message: e.message, feature, moduleLevel, hasLine: e.line !== undefined, blockers: [feature, ...more.filter((f) => f !== feature)] };
    }
    return { status: 'crashed' as const, message: e instanceof Error ? `${e.name}: ${e.message}` : String(e), feature: 'CRASH (not an InputError)', moduleLevel, stack: stackTop(e) };
  };
  let mod: PtxModule;
  try {
    mod = parsePtx(text, shown);
  } catch (e) {
    const r = refusal(e, true, undefined);
    for (const kernel of names) out.push({ suite, file: shown, kernel, template: isTemplateName(kernel), ...r });
    return out;
  }
  for (const fn of mod.functions) {
    if (!fn.isEntry) continue;
    const base = { suite, file: shown, kernel: fn.name, template: isTemplateName(fn.name) };
    try {
      prepare(mod, fn.name, shown);
      out.push({ ...base, status: 'loaded', message: '' });
    } catch (e) {
      out.push({ ...base, ...refusal(e, false, fn.name) });
    }
  }
  return out;
}

function pct(a: number, b: number): string {
  return b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`;
}

function table(rows: string[][]): string {
  const w = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((s, c) => (c === 0 ? s.padEnd(w[c]!) : s.padStart(w[c]!))).join('  ')).join('\n');
}

function main(): void {
  const args = process.argv.slice(2);
  let jsonOut: string | undefined;
  let blockers = true;
  const dirs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--json') jsonOut = args[++i];
    else if (args[i] === '--no-blockers') blockers = false;
    else dirs.push(args[i]!);
  }
  if (dirs.length === 0) {
    console.error('usage: npx tsx scripts/ptx-survey.ts <dir>... [--json out.json] [--no-blockers]');
    process.exit(2);
  }
  const kernels: KernelRecord[] = [];
  const notCompiled: NotCompiledRecord[] = [];
  const emptyModules: string[] = [];
  for (const dir of dirs) {
    const files: string[] = [];
    walk(dir, files);
    for (const f of files) {
      const suite = suiteOf(dir, f);
      const shown = relative(dir, f);
      if (f.endsWith('.nvcc-failed')) {
        const reason = readFileSync(f, 'utf8').split('\n').find((l) => /error|fatal/i.test(l)) ?? '';
        notCompiled.push({ suite, file: shown.replace(/\.nvcc-failed$/, ''), reason: reason.trim() });
      } else if (f.endsWith('.ptx')) {
        const recs = surveyFile(f, suite, shown, blockers);
        if (recs.length === 0) emptyModules.push(shown);
        kernels.push(...recs);
      }
    }
  }

  const suites = [...new Set([...kernels.map((k) => k.suite), ...notCompiled.map((n) => n.suite)])].sort();
  const rows: string[][] = [['suite', 'ptx files', 'not compiled', 'kernels', 'loaded', 'refused', 'crashed', 'loaded %', 'non-tmpl', 'nt loaded', 'nt loaded %']];
  const line = (name: string, ks: KernelRecord[], nc: number) => {
    const nt = ks.filter((k) => !k.template);
    rows.push([
      name,
      String(new Set(ks.map((k) => k.file)).size),
      String(nc),
      String(ks.length),
      String(ks.filter((k) => k.status === 'loaded').length),
      String(ks.filter((k) => k.status === 'refused').length),
      String(ks.filter((k) => k.status === 'crashed').length),
      pct(ks.filter((k) => k.status === 'loaded').length, ks.length),
      String(nt.length),
      String(nt.filter((k) => k.status === 'loaded').length),
      pct(nt.filter((k) => k.status === 'loaded').length, nt.length),
    ]);
  };
  for (const s of suites) line(s, kernels.filter((k) => k.suite === s), notCompiled.filter((n) => n.suite === s).length);
  line('ALL', kernels, notCompiled.length);
  console.log(table(rows));

  // features
  const failed = kernels.filter((k) => k.status !== 'loaded');
  const feats = new Map<string, { first: number; firstNt: number; any: number; only: number; suites: Set<string>; example: string }>();
  const get = (f: string, ex: string) => {
    let v = feats.get(f);
    if (!v) feats.set(f, (v = { first: 0, firstNt: 0, any: 0, only: 0, suites: new Set(), example: ex }));
    return v;
  };
  for (const k of failed) {
    const bl = k.blockers ?? [k.feature!];
    const v = get(k.feature!, k.message);
    v.first++;
    if (!k.template) v.firstNt++;
    v.suites.add(k.suite);
    for (const f of new Set(bl)) get(f, k.message).any++;
    if (bl.length === 1) v.only++;
  }
  const ranked = [...feats.entries()].sort((a, b) => b[1].first - a[1].first || b[1].any - a[1].any);
  console.log(`\nRefusal features (${failed.length} kernels not loaded). first = first refusal of the kernel; nt = of those, non-template; any = kernels where the feature is among the blockers found; only = first refusal and no further blocker found`);
  console.log(
    table([
      ['feature', 'first', 'nt', 'any', 'only', 'suites'],
      ...ranked.map(([f, v]) => [f.length > 110 ? f.slice(0, 107) + '...' : f, String(v.first), String(v.firstNt), String(v.any), String(v.only), [...v.suites].join(',')]),
    ]),
  );
  const noLine = kernels.filter((k) => k.status === 'refused' && !k.hasLine);
  if (noLine.length) {
    console.log(`\nRefusals without a line (${noLine.length}):`);
    for (const m of new Set(noLine.map((k) => k.feature))) console.log(`  ${m}`);
  }
  const crashes = kernels.filter((k) => k.status === 'crashed');
  console.log(`\nCrashes (non-InputError): ${crashes.length} kernels`);
  for (const c of new Map(crashes.map((c) => [`${c.file}`, c])).values()) console.log(`  ${c.file} ${c.kernel}: ${c.message}\n    ${c.stack}`);
  if (emptyModules.length) console.log(`\nPTX files without kernels: ${emptyModules.length}`);
  if (notCompiled.length) {
    console.log(`\nNot compiled (${notCompiled.length} sources):`);
    for (const n of notCompiled) console.log(`  ${n.file}: ${n.reason.slice(0, 140)}`);
  }
  if (jsonOut) {
    writeFileSync(jsonOut, JSON.stringify({ kernels, notCompiled, emptyModules }, null, 1));
    console.log(`\nwrote ${jsonOut}`);
  }
}

main();
