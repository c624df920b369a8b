/**
 * Seeded mutation fuzzer inputs (issue 9 item 7): every case starts from a real input of the
 * project (a library scenario, a PTX kernel, a copied Accel-Sim trace, a GPGPU-Sim
 * gpgpusim.config, a `--set`/`--config-set` argument, an output path) and applies a few
 * mutations of the kinds that crashed or hung warpstate before (issue 9: alias bombs, huge
 * counts, duplicated launches, `__proto__` keys, bad seeds, directories and `/dev/full` as
 * output paths).
 *
 * Generation is pure: the same seed and count give the same cases (file contents and argv),
 * on every machine with the same checkout. Nothing here runs the simulator; see runner.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import { getPreset } from '../../src/config/index.ts';

/** Absolute path of the repository root (this file is test/fuzz/generate.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Placeholder in argv and file contents for the case's own directory (absolute, no trailing slash). */
export const CASE_DIR = '${CASE}';

/** The input families a case can mutate. */
export type CaseFamily = 'scenario' | 'ptx' | 'trace' | 'config' | 'override' | 'output' | 'args';

/**
 * One fuzz case: files to write into a fresh case directory, then the CLI's argv (after
 * `warpstate`). `${CASE}` in argv or in a text file stands for the case directory.
 */
export interface FuzzCase {
  /** 0-based index in the run: case `id` of seed `s` is always the same case. */
  readonly id: number;
  /** Which kind of input was mutated. */
  readonly family: CaseFamily;
  /** Human-readable list of what was done to the original input. */
  readonly mutations: string[];
  /** Relative path in the case directory -> content (text, or bytes for binary garbage). */
  readonly files: Record<string, string | Uint8Array>;
  /** Empty directories to create (relative), e.g. an output path that is a directory. */
  readonly dirs: string[];
  /** Files to make read-only after writing (relative). */
  readonly readOnly: string[];
  /** argv after `warpstate` (e.g. `['run', '${CASE}/s.yaml', '-q']`). */
  readonly argv: string[];
  /** Must run as a real child process (output devices, paths), never in a shared worker. */
  readonly spawn: boolean;
}

/** A seeded random stream (pure-rand xoroshiro128+) with the few draws the mutators need. */
export class Rand {
  private readonly g: RandomGenerator;
  constructor(seed: number) {
    this.g = xoroshiro128plus(seed | 0);
  }
  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return uniformInt(this.g, lo, hi);
  }
  /** True with probability p (p in [0, 1], resolution 1/1000). */
  chance(p: number): boolean {
    return this.int(0, 999) < p * 1000;
  }
  /** One element of a non-empty array. */
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)]!;
  }
  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(table: readonly (readonly [number, T])[]): T {
    const total = table.reduce((a, [w]) => a + w, 0);
    let r = this.int(0, total - 1);
    for (const [w, v] of table) {
      if (r < w) return v;
      r -= w;
    }
    return table[table.length - 1]![1];
  }
}

// ---------------------------------------------------------------------------------------------
// The real inputs the mutations start from (read once; the checkout's own files).

const texts = new Map<string, string>();
/** A file of the checkout (cached: generation reads the same few files thousands of times). */
const read = (rel: string): string => {
  let t = texts.get(rel);
  if (t === undefined) texts.set(rel, (t = readFileSync(join(REPO_ROOT, rel), 'utf8')));
  return t;
};

/** Library scenarios, relative paths. */
const SCENARIOS = [
  ...readdirSync(join(REPO_ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => `scenarios/${f}`),
  ...readdirSync(join(REPO_ROOT, 'scenarios/gpu')).filter((f) => f.endsWith('.yaml')).map((f) => `scenarios/gpu/${f}`),
].sort();
/** Kernel scenarios small enough to run in about a second (functional or capped timing). */
const KERNEL_SCENARIOS = SCENARIOS.filter((s) => /\/(k-|quickstart|gpu\/|ext-)/.test(s));
/** Copied GPGPU-Sim configs. */
const GPGPUSIM_CONFIGS = [
  'data/gpgpusim-configs/tested-cfgs/SM2_GTX480/gpgpusim.config',
  'data/gpgpusim-configs/tested-cfgs/SM6_TITANX/gpgpusim.config',
  'data/gpgpusim-configs/tested-cfgs/SM7_QV100/gpgpusim.config',
  'data/gpgpusim-configs/tested-cfgs/SM75_RTX2060/gpgpusim.config',
  'data/accelsim-traces/gtx1080-config/gpgpusim.config',
];
/** Copied Accel-Sim trace directories (kernelslist.g and kernel-N.traceg). */
const TRACE_DIRS = ['data/accelsim-traces/vectoradd-100-32', 'data/accelsim-traces/matrixmul-32-32'];

/** Dotted leaf paths of the gtx480 config (keys for `--config-set` / `config show --set`). */
function configLeafPaths(): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path === '' ? k : `${path}.${k}`);
    else out.push(path);
  };
  walk(getPreset('gtx480'), '');
  return out.filter((p) => p !== 'name' && p !== 'description' && !p.startsWith('sources'));
}
const CONFIG_PATHS = configLeafPaths();

// ---------------------------------------------------------------------------------------------
// Values and text pieces the mutations insert.

/** Boundary and wrong-type values (issue 9: 0, -1, 1.5, 1e12, NaN-ish strings, unicode ...). */
const BOUNDARY: readonly unknown[] = [
  0, -1, 1, 1.5, -0.5, 2, 3, 31, 32, 33, 255, 256, 1023, 65535, 65536, 2 ** 26, 2 ** 28, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53, 1e12, -1e12, 1e308,
  'NaN', '.nan', '.inf', '-.inf', '1e999', '0x10', '', ' ', 'null', 'true', '1.5', '-1', 'ünïcödé ☃ 𝔘', '\u0000', '\u202e', 'a'.repeat(5000),
  null, true, false, [], {}, [1, 2, 3], { a: 1 }, { __proto__x: 1 },
];
/** Values for `--set key=value` arguments (text, read as YAML scalars by the CLI). */
const TEXT_VALUES = [
  '0', '-1', '1', '1.5', '2', '4', '8', '32', '33', '1e12', '1e999', '2147483648', '4294967296', '268435456', '9007199254740993', 'NaN', '.nan', '.inf', '-.inf', '',
  'null', 'true', 'abc', '[1,2]', '{a: 1}', '{', '"', "'", '*a', '&a x', '!!binary AAAA', 'ünïcödé', '0x20', '1_000', '100000', '1000000', '-0',
];
/** Keys that must never reach an object's prototype. */
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** A YAML billion-laughs document fragment: `depth` levels of `width` aliases. */
function aliasBomb(depth: number, width: number): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let d = 1; d <= depth; d++) lines.push(`a${d}: &a${d} [${Array.from({ length: width }, () => `*a${d - 1}`).join(', ')}]`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Generic mutators.

type Json = unknown;
type PathSeg = string | number;

/** Every path to a node in a parsed JSON/YAML value (the root is `[]`). */
function allPaths(v: Json, path: PathSeg[] = [], out: PathSeg[][] = []): PathSeg[][] {
  out.push(path);
  if (Array.isArray(v)) v.forEach((x, i) => allPaths(x, [...path, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) allPaths(x, [...path, k], out);
  return out;
}
function getAt(v: Json, path: PathSeg[]): Json {
  let cur: any = v;
  for (const s of path) cur = cur?.[s as keyof typeof cur];
  return cur;
}
const fmtPath = (p: PathSeg[]) => (p.length === 0 ? '<root>' : p.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('').replace(/^\./, ''));

/**
 * Applies one structural mutation to a parsed document in place (the root is wrapped so it can
 * be replaced); returns a description.
 */
function mutateTree(r: Rand, holder: { doc: Json }, opts: { bigArrays: boolean }): string {
  const paths = allPaths(holder.doc).filter((p) => p.length > 0);
  if (paths.length === 0) {
    holder.doc = r.pick(BOUNDARY);
    return 'replace root';
  }
  const path = r.pick(paths);
  const parent = getAt(holder.doc, path.slice(0, -1)) as any;
  const key = path[path.length - 1]!;
  const value = parent[key];
  const op = r.weighted([
    [30, 'replace'],
    [12, 'delete'],
    [10, 'duplicate'],
    [6, 'swap'],
    [6, 'protoKey'],
    [5, 'wrap'],
    [5, 'renameKey'],
    [4, 'bigNumber'],
    [opts.bigArrays ? 3 : 0, 'bigArray'],
    [4, 'stringify'],
  ] as const);
  switch (op) {
    case 'replace': {
      const v = r.pick(BOUNDARY);
      parent[key] = v;
      return `${fmtPath(path)} = ${JSON.stringify(v)?.slice(0, 40)}`;
    }
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      return `delete ${fmtPath(path)}`;
    case 'duplicate': {
      const times = r.pick([1, 2, 50]);
      if (Array.isArray(parent)) {
        for (let i = 0; i < times; i++) parent.splice(key as number, 0, structuredClone(value));
        return `duplicate ${fmtPath(path)} x${times}`;
      }
      parent[`${String(key)}_copy`] = structuredClone(value);
      return `copy key ${fmtPath(path)}`;
    }
    case 'swap': {
      const sibs: PathSeg[] = Array.isArray(parent) ? parent.map((_: unknown, i: number) => i) : Object.keys(parent);
      const other = r.pick(sibs);
      const t = parent[other];
      parent[other] = value;
      parent[key] = t;
      return `swap ${fmtPath(path)} <-> ${String(other)}`;
    }
    case 'protoKey': {
      const k = r.pick(PROTO_KEYS);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        Object.defineProperty(value, k, { value: r.pick([{ polluted: 1 }, 1, 'x', null]), enumerable: true, configurable: true, writable: true });
        return `add key ${k} under ${fmtPath(path)}`;
      }
      if (!Array.isArray(parent)) {
        Object.defineProperty(parent, k, { value, enumerable: true, configurable: true, writable: true });
        delete parent[key];
        return `rename ${fmtPath(path)} to ${k}`;
      }
      (parent as unknown as Record<PathSeg, unknown>)[key] = { [k]: value };
      return `wrap ${fmtPath(path)} in {${k}}`;
    }
    case 'wrap':
      parent[key] = r.chance(0.5) ? [value] : { value };
      return `wrap ${fmtPath(path)}`;
    case 'renameKey':
      if (!Array.isArray(parent)) {
        const nk = r.pick([`${String(key)}X`, String(key).toUpperCase(), `${String(key)} `, 'ü' + String(key), '']);
        parent[nk] = value;
        delete parent[key];
        return `rename ${fmtPath(path)} to '${nk}'`;
      }
      (parent as unknown as Record<PathSeg, unknown>)[key] = null;
      return `null ${fmtPath(path)}`;
    case 'bigNumber': {
      const v = typeof value === 'number' ? value * r.pick([1000, 1e6, 1e9, -1]) : r.pick([1e6, 1e9, 1e12]);
      parent[key] = v;
      return `${fmtPath(path)} = ${v}`;
    }
    case 'bigArray': {
      // Objects repeated as YAML aliases would be expanded by the loader; plain copies up to
      // 20,000 (a few MB), scalars up to 200,000.
      const n = typeof value === 'object' && value !== null ? r.pick([100, 5000, 20_000]) : r.pick([1000, 200_000]);
      parent[key] = Array.from({ length: n }, () => (typeof value === 'object' ? structuredClone(value) : 1));
      return `${fmtPath(path)} = array of ${n}`;
    }
    case 'stringify':
      parent[key] = typeof value === 'string' ? Number(value.length) : JSON.stringify(value);
      return `retype ${fmtPath(path)}`;
  }
}

/** Line-level text mutations (truncate, delete/duplicate/swap lines, garbage, BOM, CRLF). */
function mutateText(r: Rand, text: string): { text: string; what: string } {
  const lines = text.split('\n');
  const i = r.int(0, Math.max(0, lines.length - 1));
  const op = r.weighted([
    [10, 'truncate'],
    [10, 'deleteLine'],
    [8, 'dupLine'],
    [4, 'swapLines'],
    [5, 'garbage'],
    [2, 'bom'],
    [2, 'crlf'],
    [3, 'tabs'],
    [3, 'nul'],
    [3, 'longLine'],
  ] as const);
  switch (op) {
    case 'truncate': {
      const at = r.int(0, text.length);
      return { text: text.slice(0, at), what: `truncate at byte ${at}` };
    }
    case 'deleteLine':
      lines.splice(i, 1);
      return { text: lines.join('\n'), what: `delete line ${i + 1}` };
    case 'dupLine': {
      const n = r.pick([1, 5, 500]);
      lines.splice(i, 0, ...Array.from({ length: n }, () => lines[i] ?? ''));
      return { text: lines.join('\n'), what: `duplicate line ${i + 1} x${n}` };
    }
    case 'swapLines': {
      const j = r.int(0, Math.max(0, lines.length - 1));
      [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
      return { text: lines.join('\n'), what: `swap lines ${i + 1} ${j + 1}` };
    }
    case 'garbage': {
      const g = r.pick(['{', '}', '[', ':', '- -', '%', '&x', '*nope', '!!js/function f', '"unterminated', "'", '\t', '\\', '𝔘𝔫𝔦', '\uFFFE', '0x', '-']);
      const line = lines[i] ?? '';
      const at = r.int(0, line.length);
      lines[i] = line.slice(0, at) + g + line.slice(at);
      return { text: lines.join('\n'), what: `insert ${JSON.stringify(g)} on line ${i + 1}` };
    }
    case 'bom':
      return { text: '\uFEFF' + text, what: 'BOM' };
    case 'crlf':
      return { text: text.replace(/\n/g, '\r\n'), what: 'CRLF line ends' };
    case 'tabs':
      return { text: text.replace(/^ {2}/gm, '\t'), what: 'tabs for indentation' };
    case 'nul':
      lines[i] = (lines[i] ?? '') + '\u0000';
      return { text: lines.join('\n'), what: `NUL on line ${i + 1}` };
    case 'longLine':
      lines.splice(i, 0, 'x'.repeat(r.pick([10_000, 1_000_000])));
      return { text: lines.join('\n'), what: `long line at ${i + 1}` };
  }
}

// ---------------------------------------------------------------------------------------------
// Families.

/** Scenario with its relative paths made absolute (so it can live in the case directory). */
const scenarioDocs = new Map<string, unknown>();
function loadScenarioDoc(rel: string): any {
  let doc = scenarioDocs.get(rel) as any;
  if (doc === undefined) {
    doc = parseYaml(read(rel));
    const base = join(REPO_ROOT, rel, '..');
    for (const l of doc.launches ?? []) if (typeof l.ptx === 'string') l.ptx = join(base, l.ptx);
    // The functional-mode budget beside --max-cycles: a kernel that loops without end stops
    // after 2e6 warp instructions (exit 3) instead of the default 1e9 (~100 s here). Every
    // library kernel needs fewer.
    if (Array.isArray(doc.launches) && doc.launches.length > 0) doc.maxWarpInstructions = 2_000_000;
    scenarioDocs.set(rel, doc);
  }
  return structuredClone(doc);
}

/** Flags that keep a valid run small: timing runs capped in core cycles, networks in time. */
function budgetFlags(r: Rand): string[] {
  return ['-q', '--max-cycles', String(r.pick([2000, 20000, 100000])), ...(r.chance(0.5) ? ['--until', r.pick(['2us', '10us', '50us'])] : [])];
}

function scenarioCase(r: Rand, id: number): FuzzCase {
  const rel = r.pick(SCENARIOS);
  const holder = { doc: loadScenarioDoc(rel) };
  const mutations: string[] = [`from ${rel}`];
  const n = r.int(1, 3);
  for (let k = 0; k < n; k++) mutations.push(mutateTree(r, holder, { bigArrays: true }));
  let text = stringifyYaml(holder.doc, { aliasDuplicateObjects: false, lineWidth: 0 });
  if (r.chance(0.08)) {
    // An alias bomb, at the top or inside params/buffers, referenced from a field.
    const bomb = aliasBomb(r.pick([4, 8, 12]), r.pick([5, 10]));
    text = `${bomb}\n${text}`;
    const field = r.pick(['description', 'clocks', 'units', 'buffers', 'seed']);
    text = text.replace(new RegExp(`^${field}:.*$`, 'm'), `${field}: *a${bomb.split('\n').length - 1}`);
    mutations.push(`alias bomb referenced from ${field}`);
  }
  if (r.chance(0.3)) {
    const m = mutateText(r, text);
    text = m.text;
    mutations.push(m.what);
  }
  const extra = r.chance(0.2) ? ['--stats', `${CASE_DIR}/stats.json`] : [];
  const mode = r.chance(0.15) ? ['--functional'] : [];
  return { id, family: 'scenario', mutations, files: { 's.yaml': text }, dirs: [], readOnly: [], argv: ['run', `${CASE_DIR}/s.yaml`, ...budgetFlags(r), ...mode, ...extra], spawn: false };
}

/** PTX operand/type mutations on one line. */
function mutatePtxLine(r: Rand, line: string): { line: string; what: string } {
  const op = r.weighted([
    [5, 'type'],
    [5, 'imm'],
    [5, 'reg'],
    [2, 'opcode'],
    [2, 'pred'],
    [2, 'directive'],
  ] as const);
  switch (op) {
    case 'type': {
      const types = ['.u32', '.s32', '.u64', '.s64', '.f32', '.f64', '.b32', '.b64', '.pred', '.u8', '.b16', '.f16', '.v4', '.u128'];
      const m = line.match(/\.(u|s|b|f)(8|16|32|64)/);
      if (!m) return { line, what: 'no type' };
      const t = r.pick(types);
      return { line: line.replace(m[0], t), what: `type ${m[0]} -> ${t}` };
    }
    case 'imm': {
      const v = r.pick(['0', '-1', '2147483647', '4294967295', '0xFFFFFFFFFFFFFFFF', '99999999999999999999', '0f7FC00000', '0d7FF8000000000000', '1.5', '0x', '-0']);
      const m = line.match(/(?<![%\w])-?(0[xXfFdD][0-9a-fA-F]+|\d+)(?![\w])/);
      if (!m) return { line: line.replace(/;\s*$/, `, ${v};`), what: `extra operand ${v}` };
      return { line: line.replace(m[0], v), what: `immediate ${m[0]} -> ${v}` };
    }
    case 'reg': {
      const regs = line.match(/%[a-z]+\d*/g);
      if (!regs) return { line, what: 'no register' };
      const from = r.pick(regs);
      const to = r.pick(['%r1', '%rd1', '%f1', '%p1', '%r99999', '%tid.w', '%nope', '%r0', '%sp', '%fd1', '%rs1']);
      return { line: line.replace(from, to), what: `register ${from} -> ${to}` };
    }
    case 'opcode': {
      const m = line.match(/^\s*(@!?%p\d+\s+)?([a-z][a-z0-9_]*)/);
      if (!m) return { line, what: 'no opcode' };
      const to = r.pick(['bra', 'ret', 'exit', 'bar', 'trap', 'nop', 'mad', 'div', 'rem', 'shfl', 'atom', 'vote', 'frobnicate']);
      return { line: line.replace(m[2]!, to), what: `opcode ${m[2]} -> ${to}` };
    }
    case 'pred':
      return { line: `@%p1 ${line.trim()}`, what: 'predicated' };
    case 'directive': {
      const d = r.pick(['.reg .b32 %r<1000000000>;', '.shared .align 4 .b8 big[4294967295];', '.local .b8 l[1099511627776];', '.local .b8 l[524288];', '.local .b8 l[524289];', '.shared .b8 s[49152];', '.shared .b8 s[49153];', '.const .b8 c[65537];', '.global .b8 g[1073741825];', '.maxntid 0, 0, 0;', '.reqntid 2048;', '.version 99.9', '.target sm_1000', '.address_size 16']);
      return { line: `${line}\n${d}`, what: `directive ${d}` };
    }
  }
}

function ptxCase(r: Rand, id: number): FuzzCase {
  const rel = r.pick(KERNEL_SCENARIOS);
  const doc = loadScenarioDoc(rel);
  const launches: any[] = doc.launches ?? [];
  const mutations = [`from ${rel}`];
  const ptxPath: string = launches[0].ptx;
  let lines = read(ptxPath.slice(REPO_ROOT.length)).split('\n');
  const n = r.int(1, 4);
  for (let k = 0; k < n; k++) {
    if (lines.length === 0) break;
    const body = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\s+[@a-z]/.test(l) && !/^\s*\/\//.test(l));
    const [, i] = body.length > 0 ? r.pick(body) : [lines[0]!, 0];
    const op = r.weighted([
      [8, 'operand'],
      [5, 'delete'],
      [4, 'duplicate'],
      [2, 'truncate'],
      [1, 'swap'],
    ] as const);
    if (op === 'operand') {
      const m = mutatePtxLine(r, lines[i]!);
      lines[i] = m.line;
      mutations.push(`line ${i + 1}: ${m.what}`);
    } else if (op === 'delete') {
      lines.splice(i, 1);
      mutations.push(`delete line ${i + 1}`);
    } else if (op === 'duplicate') {
      const t = r.pick([1, 2, 100]);
      lines.splice(i, 0, ...Array.from({ length: t }, () => lines[i]!));
      mutations.push(`duplicate line ${i + 1} x${t}`);
    } else if (op === 'truncate') {
      const at = r.int(0, lines.length);
      lines = lines.slice(0, at);
      mutations.push(`truncate at line ${at}`);
    } else {
      const j = r.int(0, lines.length - 1);
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      mutations.push(`swap lines ${i + 1} ${j + 1}`);
    }
  }
  for (const l of launches) if (l.ptx === ptxPath) l.ptx = `${CASE_DIR}/k.ptx`;
  const timing = r.chance(0.4);
  if (timing) {
    doc.mode = 'timing';
    doc.gpu ??= { preset: 'gtx480' };
  }
  mutations.push(timing ? 'timing mode' : `mode ${doc.mode ?? 'default'}`);
  return {
    id,
    family: 'ptx',
    mutations,
    files: { 's.yaml': stringifyYaml(doc, { lineWidth: 0 }), 'k.ptx': lines.join('\n') },
    dirs: [],
    readOnly: [],
    argv: ['run', `${CASE_DIR}/s.yaml`, ...budgetFlags(r)],
    spawn: false,
  };
}

/** Accel-Sim trace line mutations: fields of the instruction lines and the header. */
function mutateTraceLine(r: Rand, line: string): { line: string; what: string } {
  const fields = line.split(' ');
  const i = r.int(0, Math.max(0, fields.length - 1));
  const v = r.pick(['', '-1', '0', 'ffffffffffffffff', 'zz', '4294967296', '999999999', '1e12', 'R999', 'R-1', 'NOPE.X', '0x7fffffffffffffff', '33', 'ü']);
  const old = fields[i];
  fields[i] = v;
  return { line: fields.join(' '), what: `field ${i} '${old}' -> '${v}'` };
}

function traceCase(r: Rand, id: number): FuzzCase {
  const dir = r.pick(TRACE_DIRS);
  const files: Record<string, string | Uint8Array> = {};
  for (const f of readdirSync(join(REPO_ROOT, dir))) files[`t/${f}`] = read(`${dir}/${f}`);
  const mutations = [`from ${dir}`];
  const n = r.int(1, 3);
  for (let k = 0; k < n; k++) {
    const names = Object.keys(files);
    const name = r.weighted([
      [6, 't/kernel-1.traceg'],
      [3, 't/kernelslist.g'],
      [1, r.pick(names)],
    ] as const);
    const content = files[name];
    const text = typeof content === 'string' ? content : undefined;
    const op = r.weighted([
      [8, 'field'],
      [4, 'text'],
      [2, 'header'],
      [2, 'delete'],
      [1, 'empty'],
      [1, 'dupKernel'],
      [1, 'binary'],
    ] as const);
    if (text === undefined || op === 'delete') {
      delete files[name];
      mutations.push(`delete ${name}`);
    } else if (op === 'field') {
      const lines = text.split('\n');
      const cand = lines.map((l, i) => [l, i] as const).filter(([l]) => /^[0-9a-f]{4} /.test(l) || /^insts = /.test(l) || /^warp = /.test(l) || /^thread block/.test(l));
      if (cand.length === 0) continue;
      const [l, i] = r.pick(cand);
      const m = mutateTraceLine(r, l);
      lines[i] = m.line;
      files[name] = lines.join('\n');
      mutations.push(`${name}:${i + 1} ${m.what}`);
    } else if (op === 'header') {
      const lines = text.split('\n');
      const cand = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('-'));
      if (cand.length === 0) continue;
      const [l, i] = r.pick(cand);
      const v = r.pick(['(0,0,0)', '(65536,65536,65536)', '(2147483647,1,1)', '(1,1)', '(a,b,c)', '-1', '99999999999', '0', '', '(1024,1024,1024)']);
      lines[i] = l.replace(/=.*$/, `= ${v}`);
      files[name] = lines.join('\n');
      mutations.push(`${name}:${i + 1} header -> ${v}`);
    } else if (op === 'text') {
      const m = mutateText(r, text);
      files[name] = m.text;
      mutations.push(`${name}: ${m.what}`);
    } else if (op === 'empty') {
      files[name] = '';
      mutations.push(`empty ${name}`);
    } else if (op === 'dupKernel') {
      const t = r.pick([2, 50]);
      files['t/kernelslist.g'] = ((files['t/kernelslist.g'] as string | undefined) ?? '') + '\nkernel-1.traceg'.repeat(t) + '\n';
      mutations.push(`kernel-1.traceg listed ${t} more times`);
    } else {
      const bytes = new Uint8Array(r.pick([16, 4096]));
      for (let b = 0; b < bytes.length; b++) bytes[b] = r.int(0, 255);
      files[name] = bytes;
      mutations.push(`${name}: random bytes`);
    }
  }
  const gpu = r.weighted([
    [5, []],
    [2, ['--gpu', r.pick(['gtx480', 'k20x', 'gtx1080ti', 'maxwell-cke', 'nope'])]],
    [2, ['--gpu', join(REPO_ROOT, r.pick(GPGPUSIM_CONFIGS))]],
  ] as const);
  const opc = r.chance(0.3) ? ['--unknown-opcode', r.pick(['alu', 'error', 'bogus'])] : [];
  if (r.chance(0.25)) {
    // The same directory through a scenario's accelsimTrace block.
    const scen = { name: 'fuzz_trace', mode: 'timing', accelsimTrace: { dir: 't', unknownOpcode: r.pick(['error', 'alu']) }, gpu: { preset: 'gtx480' } };
    files['s.yaml'] = stringifyYaml(scen);
    return { id, family: 'trace', mutations: [...mutations, 'via scenario accelsimTrace'], files, dirs: [], readOnly: [], argv: ['run', `${CASE_DIR}/s.yaml`, ...budgetFlags(r)], spawn: false };
  }
  return { id, family: 'trace', mutations, files, dirs: [], readOnly: [], argv: ['run', '--accelsim-trace', `${CASE_DIR}/t`, ...gpu, ...opc, ...budgetFlags(r)], spawn: false };
}

function configCase(r: Rand, id: number): FuzzCase {
  const rel = r.pick(GPGPUSIM_CONFIGS);
  let lines = read(rel).split('\n');
  const mutations = [`from ${rel}`];
  const n = r.int(1, 4);
  for (let k = 0; k < n; k++) {
    const opts = lines.map((l, i) => [l, i] as const).filter(([l]) => /^-\S+\s+\S/.test(l));
    const [l, i] = opts.length > 0 ? r.pick(opts) : [lines[0] ?? '', 0];
    const op = r.weighted([
      [10, 'value'],
      [3, 'field'],
      [3, 'delete'],
      [2, 'duplicate'],
      [2, 'unknown'],
      [2, 'text'],
    ] as const);
    if (op === 'value') {
      const v = r.pick([...TEXT_VALUES, '0:0:0:0', '1,2,3', 'N:0:0:0,L:R:m:N:L,A:0:0,0:0,0', 'S:1:128:1,L:B:m:F:L,A:1:1,1:0,1', '-1:-1', '4294967296,4294967296', '1e12:1e12', 'nan']);
      lines[i] = l.replace(/^(\S+)\s+.*$/, `$1 ${v}`);
      mutations.push(`line ${i + 1}: ${l.split(/\s/)[0]} = ${v}`);
    } else if (op === 'field') {
      // Replace one number inside a composite value (cache strings, timing lists).
      const nums = [...l.matchAll(/\d+/g)];
      if (nums.length < 2) continue;
      const m = r.pick(nums.slice(1));
      const v = r.pick(['0', '1', '3', '999999999', '4294967296', '65537', '']);
      lines[i] = l.slice(0, m.index) + v + l.slice(m.index! + m[0].length);
      mutations.push(`line ${i + 1}: number ${m[0]} -> '${v}'`);
    } else if (op === 'delete') {
      lines.splice(i, 1);
      mutations.push(`delete line ${i + 1}`);
    } else if (op === 'duplicate') {
      lines.splice(i, 0, lines[i]!.replace(/\s\S+$/, ` ${r.pick(TEXT_VALUES)}`));
      mutations.push(`duplicate option on line ${i + 1} with another value`);
    } else if (op === 'unknown') {
      lines.splice(i, 0, r.pick(['-gpgpu_nope 1', '-__proto__ 1', '-constructor 2', '-gpgpu_n_clusters', '- 1', '-config nested.config', '-gpgpu_n_clusters 1 2 3']));
      mutations.push(`insert odd option at line ${i + 1}`);
    } else {
      const m = mutateText(r, lines.join('\n'));
      lines = m.text.split('\n');
      mutations.push(m.what);
    }
  }
  const text = lines.join('\n');
  const how = r.weighted([
    [5, 'show'],
    [3, 'trace'],
    [2, 'scenario'],
  ] as const);
  const files: Record<string, string> = { 'gpgpusim.config': text };
  if (how === 'show') return { id, family: 'config', mutations, files, dirs: [], readOnly: [], argv: ['config', 'show', `${CASE_DIR}/gpgpusim.config`, ...(r.chance(0.5) ? ['--json'] : [])], spawn: false };
  if (how === 'trace') return { id, family: 'config', mutations, files, dirs: [], readOnly: [], argv: ['run', '--accelsim-trace', join(REPO_ROOT, 'data/accelsim-traces/vectoradd-100-32'), '--gpu', `${CASE_DIR}/gpgpusim.config`, ...budgetFlags(r)], spawn: false };
  const doc = loadScenarioDoc('scenarios/k-vecadd.yaml');
  doc.mode = 'timing';
  doc.gpu = { gpgpusimConfig: 'gpgpusim.config' };
  files['s.yaml'] = stringifyYaml(doc, { lineWidth: 0 });
  return { id, family: 'config', mutations: [...mutations, 'via scenario gpu.gpgpusimConfig'], files, dirs: [], readOnly: [], argv: ['run', `${CASE_DIR}/s.yaml`, ...budgetFlags(r)], spawn: false };
}

/** Scenario field paths, as `--set` keys (`launches[0].grid[0]`). */
function scenarioSetKeys(doc: Json): string[] {
  return allPaths(doc)
    .filter((p) => p.length > 0)
    .map((p) => p.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join(''));
}

function overrideCase(r: Rand, id: number): FuzzCase {
  const odd = () => r.pick(['__proto__.x', 'constructor.prototype.y', 'sm..count', 'sm.count[0]', '[0]', 'sm.', '.sm', 'sm count', 'ümlaut', 'x'.repeat(300), 'sm.count.deeper', 'a[99999999999]']);
  const kv = (key: string) => {
    const form = r.weighted([
      [12, 'kv'],
      [1, 'noEq'],
      [1, 'emptyKey'],
    ] as const);
    if (form === 'noEq') return key;
    if (form === 'emptyKey') return `=${r.pick(TEXT_VALUES)}`;
    return `${key}=${r.pick(TEXT_VALUES)}`;
  };
  const where = r.weighted([
    [4, 'configSet'],
    [3, 'set'],
    [2, 'show'],
    [1, 'topology'],
  ] as const);
  const n = r.int(1, 3);
  const mutations: string[] = [];
  if (where === 'show' || where === 'topology') {
    const args: string[] = [];
    for (let k = 0; k < n; k++) args.push('--set', kv(r.chance(0.9) ? r.pick(CONFIG_PATHS) : odd()));
    mutations.push(`${where} ${args.join(' ')}`);
    const argv = where === 'show' ? ['config', 'show', r.pick(['gtx480', 'k20x', 'gtx1080ti', 'onac32', join(REPO_ROOT, r.pick(GPGPUSIM_CONFIGS))]), ...args] : ['topology', 'gtx480', ...args];
    return { id, family: 'override', mutations, files: {}, dirs: [], readOnly: [], argv, spawn: false };
  }
  const rel = r.pick(KERNEL_SCENARIOS);
  const doc = loadScenarioDoc(rel);
  const files = { 's.yaml': stringifyYaml(doc, { lineWidth: 0 }) };
  const args: string[] = [];
  const keys = where === 'set' ? scenarioSetKeys(doc) : CONFIG_PATHS;
  for (let k = 0; k < n; k++) args.push(where === 'set' ? '--set' : '--config-set', kv(r.chance(0.9) ? r.pick(keys) : odd()));
  if (where === 'configSet') args.push('--set', 'mode=timing');
  mutations.push(`from ${rel}`, args.join(' '));
  return { id, family: 'override', mutations, files, dirs: [], readOnly: [], argv: ['run', `${CASE_DIR}/s.yaml`, ...args, ...budgetFlags(r)], spawn: false };
}

function outputCase(r: Rand, id: number): FuzzCase {
  const dirs: string[] = [];
  const files: Record<string, string> = {};
  const readOnly: string[] = [];
  const target = r.weighted([
    [3, 'dir'],
    [3, 'devfull'],
    [3, 'underFile'],
    [2, 'proc'],
    [2, 'missingDir'],
    [2, 'readOnlyFile'],
    [1, 'empty'],
    [1, 'devnull'],
    [1, 'self'],
  ] as const);
  let path: string;
  switch (target) {
    case 'dir':
      dirs.push('outdir');
      path = `${CASE_DIR}/outdir`;
      break;
    case 'devfull':
      path = '/dev/full';
      break;
    case 'underFile':
      files['afile'] = 'x';
      path = `${CASE_DIR}/afile/out.json`;
      break;
    case 'proc':
      path = r.pick(['/proc/x', '/proc/self/status', '/sys/x']);
      break;
    case 'missingDir':
      path = `${CASE_DIR}/no/such/dir/out.json`;
      break;
    case 'readOnlyFile':
      files['ro.json'] = '';
      readOnly.push('ro.json');
      path = `${CASE_DIR}/ro.json`;
      break;
    case 'empty':
      path = '';
      break;
    case 'devnull':
      path = '/dev/null';
      break;
    case 'self':
      path = `${CASE_DIR}/s.yaml`;
      break;
  }
  const rel = r.pick(['scenarios/k-vecadd.yaml', 'scenarios/quickstart.yaml', 'scenarios/memory-network.yaml', 'scenarios/k-saxpy.yaml', 'scenarios/gpu/chase-stride.yaml', 'trace']);
  const flag = r.pick(['--stats', '--trace', '--perfetto', '--inspect', '--write-trace', 'export']);
  const mutations = [`${flag} ${target} (${path}) on ${rel}`];
  let argv: string[];
  if (flag === 'export') {
    files['t.jsonl'] = '{"t":0,"kind":"x"}\n';
    argv = ['trace', 'export', `${CASE_DIR}/t.jsonl`, '-o', path];
  } else if (rel === 'trace') {
    argv = ['run', '--accelsim-trace', join(REPO_ROOT, 'data/accelsim-traces/vectoradd-100-32'), flag, path, '-q', '--max-cycles', '20000'];
  } else {
    files['s.yaml'] = stringifyYaml(loadScenarioDoc(rel), { lineWidth: 0 });
    argv = ['run', `${CASE_DIR}/s.yaml`, flag, path, '-q', '--max-cycles', '20000', ...(r.chance(0.3) ? ['--set', 'mode=timing'] : [])];
  }
  if (r.chance(0.3)) {
    const second = r.pick(['--stats', '--trace', '--perfetto'].filter((f) => f !== flag));
    argv.push(second, `${CASE_DIR}/ok-${second.slice(2)}.json`);
    mutations.push(`plus ${second} to a good path`);
  }
  return { id, family: 'output', mutations, files, dirs, readOnly, argv, spawn: true };
}

function argsCase(r: Rand, id: number): FuzzCase {
  const rel = r.pick(KERNEL_SCENARIOS.concat('scenarios/memory-network.yaml'));
  const files: Record<string, string> = { 's.yaml': stringifyYaml(loadScenarioDoc(rel), { lineWidth: 0 }) };
  const time = () => r.pick(['0', '0ps', '-1us', '1.5ns', '1e12s', 'NaN', '10', '10xs', '99999999999999999999ps', '1us', '1e3ns', '', 'Infinity', '5 us']);
  const count = () => r.pick(['0', '-1', '1', '1.5', '1e12', '1e99', 'NaN', '', '0x10', '4294967296', '50', 'abc', '9007199254740993']);
  const opts: readonly (readonly [number, () => string[]])[] = [
    [3, () => ['--seed', count()]],
    [3, () => ['--until', time()]],
    [2, () => ['--trace-from', time(), '--trace-to', time(), '--trace', `${CASE_DIR}/t.jsonl`]],
    [3, () => ['--max-cycles', count()]],
    [1, () => ['--unknown-opcode', r.pick(['alu', 'error', '', 'x'])]],
    [1, () => ['--trace-units', r.pick(['', '*', '[', '**/**', '{a,b', 'GPU.SM[0].*']), '--trace', `${CASE_DIR}/t.jsonl`]],
    [1, () => ['--trace-kinds', r.pick(['', '*', '[', 'mem.*', '!(x)']), '--trace', `${CASE_DIR}/t.jsonl`]],
    [1, () => [r.pick(['--nope', '-x', '--', '--seed', '--stats', '--help', '--version', '-q', '--functional', '--strict'])]],
    [1, () => ['--gpu', r.pick(['nope', '', '../..', '/etc/passwd'])]],
  ];
  const argv = ['run', `${CASE_DIR}/s.yaml`, '-q'];
  const mutations = [`from ${rel}`];
  const n = r.int(1, 3);
  for (let k = 0; k < n; k++) argv.push(...r.weighted(opts)());
  if (!argv.includes('--max-cycles')) argv.push('--max-cycles', '20000');
  if (!argv.includes('--until') && rel.includes('network')) argv.push('--until', '20us');
  if (r.chance(0.2)) {
    const sub = r.pick([
      ['trace', 'diff', `${CASE_DIR}/s.yaml`, join(REPO_ROOT, 'scenarios/quickstart.yaml')],
      ['trace', 'export', `${CASE_DIR}/s.yaml`, '-o', `${CASE_DIR}/p.json`],
      ['units', r.pick(['nope', '__proto__', 'constructor', 'l1d', ''])],
      ['units', 'l1d', '--diagram', r.pick(['mermaid', 'stately', 'svg'])],
      ['config', 'show', r.pick(['nope', '__proto__', '', join(REPO_ROOT, 'scenarios'), '/dev/null', join(REPO_ROOT, 'scenarios/quickstart.yaml')])],
      ['topology', r.pick(['nope', 'gtx480', '/dev/zero'.replace('zero', 'null')]), '--links'],
      [r.pick(['nope', '', '--help', 'run'])],
      // Special files as inputs: endless devices, a directory, a /proc file.
      ['run', r.pick(['/dev/zero', '/dev/urandom', '/dev/null', '/proc/self/maps', join(REPO_ROOT, 'scenarios')]), '-q'],
      ['config', 'show', r.pick(['/dev/zero', '/dev/urandom', '/proc/self/maps', 'gpgpusim.config'])],
      ['run', '--accelsim-trace', r.pick(['/dev/zero', '/dev/null', join(REPO_ROOT, 'data'), '/proc/self']), '-q', '--max-cycles', '20000'],
      ['run', '--accelsim-trace', join(REPO_ROOT, 'data/accelsim-traces/vectoradd-100-32'), '--gpu', r.pick(['/dev/zero', '/dev/urandom', join(REPO_ROOT, 'data')]), '-q'],
      ['run', `${CASE_DIR}/s.yaml`, '--set', `launches[0].ptx=${r.pick(['/dev/zero', '/dev/urandom', join(REPO_ROOT, 'scenarios/kernels')])}`, '-q'],
    ]);
    mutations.push(sub.join(' '));
    return { id, family: 'args', mutations, files, dirs: [], readOnly: [], argv: sub, spawn: false };
  }
  mutations.push(argv.slice(3).join(' '));
  return { id, family: 'args', mutations, files, dirs: [], readOnly: [], argv, spawn: false };
}

/** Family weights (per 100 cases). */
const FAMILIES: readonly (readonly [number, (r: Rand, id: number) => FuzzCase])[] = [
  [30, scenarioCase],
  [20, ptxCase],
  [15, traceCase],
  [12, configCase],
  [12, overrideCase],
  [5, outputCase],
  [6, argsCase],
];

/**
 * The fuzz case `id` of a run seeded with `seed`: each case has its own stream derived from
 * (seed, id), so case 1234 of seed 1 is the same whether 2,000 or 5,000 cases are generated.
 * @param seed 32-bit integer
 * @param id case index, >= 0
 */
export function generateCase(seed: number, id: number): FuzzCase {
  const r = new Rand(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(id + 1, 0xc2b2ae35));
  return r.weighted(FAMILIES)(r, id);
}

/** Cases 0..count-1 of `seed`. */
export function generateCases(seed: number, count: number): FuzzCase[] {
  return Array.from({ length: count }, (_, id) => generateCase(seed, id));
}
