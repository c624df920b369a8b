/**
 * Parsers for the structured values of GPGPU-Sim options (everything that is not a plain
 * number): DRAM timing, opcode latency lists, pipeline widths, the warp scheduler string, and
 * colon lists. Each takes the location and option name to put in its `InputError`.
 *
 * Sources: GPGPU-Sim 4.x gpu-sim.cc (`memory_config::init` for the timing string), cuda-sim.cc
 * (`ptx_opcocde_latency_options`), shader.cc / shader.h (pipeline stages, schedulers).
 */
import { InputError, type SourceLocation } from '../errors.ts';
import type { DramTiming, GpuConfig, OpTiming, WarpSchedulerPolicy } from './schema.ts';

/** Where a value came from, for errors. */
export interface ValueSource {
  readonly where: SourceLocation;
  /** The option name, e.g. `-gpgpu_dram_timing_opt`. */
  readonly option: string;
}

const DEFAULT_SOURCE: ValueSource = { where: { file: '<value>' }, option: '<value>' };

function fail(src: ValueSource, reason: string): never {
  throw new InputError(src.where, reason, src.option);
}

/**
 * A non-negative decimal integer.
 * @throws InputError when `text` is not one
 */
export function parseUint(text: string, src: ValueSource = DEFAULT_SOURCE, min = 0): number {
  const t = text.trim();
  if (!/^\d+$/.test(t)) fail(src, `expected a non-negative integer, got '${t}'`);
  const v = Number(t);
  if (!Number.isSafeInteger(v)) fail(src, `integer '${t}' is too large`);
  if (v < min) fail(src, `expected an integer >= ${min}, got ${v}`);
  return v;
}

/**
 * A GPGPU-Sim boolean (`0` or `1`; any other integer counts as true, like OPT_BOOL).
 * @throws InputError when `text` is not an integer
 */
export function parseBool(text: string, src: ValueSource = DEFAULT_SOURCE): boolean {
  return parseUint(text, src) !== 0;
}

/**
 * A list of non-negative integers separated by `sep`.
 * @param counts accepted list lengths
 * @throws InputError for a non-integer item or a length not in `counts`
 */
export function parseUintList(text: string, sep: string, counts: readonly number[], src: ValueSource = DEFAULT_SOURCE): number[] {
  const items = text.trim().split(sep).map((s) => s.trim());
  if (!counts.includes(items.length)) fail(src, `expected ${counts.join(' or ')} values separated by '${sep}', got ${items.length} in '${text.trim()}'`);
  return items.map((it) => {
    if (!/^\d+$/.test(it)) fail(src, `'${it}' is not a non-negative integer in '${text.trim()}'`);
    return Number(it);
  });
}

/**
 * `-gpgpu_clock_domains <core>:<icnt>:<l2>:<dram>` in MHz (decimals allowed).
 * @throws InputError unless there are four positive numbers
 */
export function parseClockDomains(text: string, src: ValueSource = DEFAULT_SOURCE): GpuConfig['clocks'] {
  const items = text.trim().split(':').map((s) => s.trim());
  if (items.length !== 4) fail(src, `expected <core>:<icnt>:<l2>:<dram> in MHz, got '${text.trim()}'`);
  const v = items.map((it) => {
    if (!/^\d+(\.\d*)?$|^\.\d+$/.test(it) || !(Number(it) > 0)) fail(src, `clock '${it}' is not a positive number of MHz`);
    return Number(it);
  });
  return { core: v[0]!, icnt: v[1]!, l2: v[2]!, dram: v[3]! };
}

/** Result of {@link parseDramTimingOpt}: bank counts and the timing, any of them absent if not given. */
export interface ParsedDramTiming {
  banks?: number;
  bankGroups?: number;
  timing: Partial<DramTiming>;
}

const TIMING_KEYS: Record<string, keyof DramTiming | 'banks' | 'bankGroups'> = {
  nbk: 'banks',
  CCD: 'tCCD',
  RRD: 'tRRD',
  RCD: 'tRCD',
  RAS: 'tRAS',
  RP: 'tRP',
  RC: 'tRC',
  CL: 'tCL',
  WL: 'tWL',
  CDLR: 'tCDLR',
  WR: 'tWR',
  nbkgrp: 'bankGroups',
  CCDL: 'tCCDL',
  RTPL: 'tRTPL',
};
const POSITIONAL: (keyof DramTiming | 'banks' | 'bankGroups')[] = [
  'banks', 'tCCD', 'tRRD', 'tRCD', 'tRAS', 'tRP', 'tRC', 'tCL', 'tWL', 'tCDLR', 'tWR', 'bankGroups', 'tCCDL', 'tRTPL',
];

/**
 * `-gpgpu_dram_timing_opt`, in either form GPGPU-Sim accepts:
 * - named: `nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2`
 *   (keys in any order, separated by `:` or `;`, whitespace and line breaks ignored; keys not
 *   given are absent from the result);
 * - positional (legacy): `nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR[:nbkgrp:tCCDL:tRTPL]`,
 *   where a missing bank-group triple means no bank groups (nbkgrp 1, tCCDL = tRTPL = 0).
 * All values are DRAM command-clock cycles except nbk and nbkgrp (counts).
 * @throws InputError for an unknown key, a non-integer value or a wrong positional count
 */
export function parseDramTimingOpt(text: string, src: ValueSource = DEFAULT_SOURCE): ParsedDramTiming {
  const compact = text.replace(/\s+/g, '');
  const out: ParsedDramTiming = { timing: {} };
  const assign = (key: keyof DramTiming | 'banks' | 'bankGroups', v: number): void => {
    if (key === 'banks' || key === 'bankGroups') {
      if (v < 1) fail(src, `${key === 'banks' ? 'nbk' : 'nbkgrp'} must be at least 1`);
      out[key] = v;
    } else out.timing[key] = v;
  };
  if (compact.includes('=')) {
    for (const part of compact.split(/[:;]/)) {
      if (part === '') continue;
      const m = /^([A-Za-z]+)=(\d+)$/.exec(part);
      if (!m) fail(src, `expected <key>=<cycles>, got '${part}'`);
      const key = TIMING_KEYS[m[1]!];
      if (key === undefined) fail(src, `unknown DRAM timing key '${m[1]}' (known: ${Object.keys(TIMING_KEYS).join(', ')})`);
      assign(key, Number(m[2]));
    }
    return out;
  }
  const vals = parseUintList(compact, ':', [11, 12, 13, 14], src);
  if (vals.length < 14) {
    out.bankGroups = 1;
    out.timing.tCCDL = 0;
    out.timing.tRTPL = 0;
  }
  vals.forEach((v, i) => assign(POSITIONAL[i]!, v));
  return out;
}

/** Names of the opcode classes, in GPGPU-Sim's list order (ADD,MAX,MUL,MAD,DIV,SHFL). */
export const OPCODE_CLASS_ORDER = ['add', 'max', 'mul', 'mad', 'div', 'shfl'] as const;

/**
 * A `-ptx_opcode_latency_*` / `-ptx_opcode_initiation_*` list: `ADD,MAX,MUL,MAD,DIV[,SHFL]`.
 * @param maxCount 6 for int (SHFL allowed), 5 for fp/dp
 * @returns values by class name; `shfl` only when given
 * @throws InputError unless there are 5 (or, for int, 6) positive integers
 */
export function parseOpcodeList(text: string, maxCount: 5 | 6, src: ValueSource = DEFAULT_SOURCE): Partial<Record<(typeof OPCODE_CLASS_ORDER)[number], number>> {
  const vals = parseUintList(text, ',', maxCount === 6 ? [5, 6] : [5], src);
  const out: Partial<Record<(typeof OPCODE_CLASS_ORDER)[number], number>> = {};
  vals.forEach((v, i) => {
    if (v < 1) fail(src, `${OPCODE_CLASS_ORDER[i]!.toUpperCase()} must be at least 1 cycle`);
    out[OPCODE_CLASS_ORDER[i]!] = v;
  });
  return out;
}

/** Combines latency and initiation lists into per-class timings (helper for the importer). */
export function mergeOpTimings<K extends string>(latency: Partial<Record<K, number>>, initiation: Partial<Record<K, number>>, base: Record<K, OpTiming>): Record<K, OpTiming> {
  const out = {} as Record<K, OpTiming>;
  for (const k of Object.keys(base) as K[]) {
    out[k] = { latency: latency[k] ?? base[k].latency, initiation: initiation[k] ?? base[k].initiation };
  }
  return out;
}

/** Pipeline register widths by stage name, from {@link parsePipelineWidths}. */
export interface PipelineWidths {
  sp: [number, number];
  dp?: [number, number];
  int?: [number, number];
  sfu: [number, number];
  mem: [number, number];
  tensor?: [number, number];
  exWb: number;
}

/**
 * `-gpgpu_pipeline_widths`, by number of values:
 * - 13 (GPGPU-Sim 4.x): ID_OC_SP,ID_OC_DP,ID_OC_INT,ID_OC_SFU,ID_OC_MEM,OC_EX_SP,OC_EX_DP,OC_EX_INT,OC_EX_SFU,OC_EX_MEM,EX_WB,ID_OC_TENSOR_CORE,OC_EX_TENSOR_CORE
 * - 11: the same without the two tensor-core stages
 * - 7 (GPGPU-Sim 3.x): ID_OC_SP,ID_OC_SFU,ID_OC_MEM,OC_EX_SP,OC_EX_SFU,OC_EX_MEM,EX_WB
 * Each pair is [idOc, ocEx]. Stages a form does not list are absent.
 * @throws InputError for another count or a non-integer
 */
export function parsePipelineWidths(text: string, src: ValueSource = DEFAULT_SOURCE): PipelineWidths {
  const v = parseUintList(text, ',', [7, 11, 13], src);
  if (v.length === 7) {
    return { sp: [v[0]!, v[3]!], sfu: [v[1]!, v[4]!], mem: [v[2]!, v[5]!], exWb: v[6]! };
  }
  const out: PipelineWidths = {
    sp: [v[0]!, v[5]!],
    dp: [v[1]!, v[6]!],
    int: [v[2]!, v[7]!],
    sfu: [v[3]!, v[8]!],
    mem: [v[4]!, v[9]!],
    exWb: v[10]!,
  };
  if (v.length === 13) out.tensor = [v[11]!, v[12]!];
  return out;
}

/**
 * `-gpgpu_scheduler`: `lrr`, `gto`, `old` (oldest first) or
 * `two_level_active:<activeWarps>:<inner>:<outer>` -> `twoLevelGpgpusim` (GPGPU-Sim's own
 * two-list scheduler, shader.cc `two_level_active_scheduler`). GPGPU-Sim implements only inner
 * code 0 (loose RR) and outer code 1 (strict RR) (shader.h `scheduler_prioritization_type`) and
 * aborts on the others, so they are refused here (the 000 Fig. 3.6 scheduler `twoLevel`, with
 * `gto` orders, has no GPGPU-Sim string: set `policies.warpScheduler` instead).
 * @throws InputError for a scheduler warpstate does not model (e.g. `rrr`, `warp_limiting`),
 *   a malformed two-level string, or two-level codes GPGPU-Sim does not implement
 */
export function parseWarpScheduler(text: string, src: ValueSource = DEFAULT_SOURCE): WarpSchedulerPolicy {
  const t = text.trim();
  if (t === 'lrr') return { kind: 'lrr' };
  if (t === 'gto') return { kind: 'gto' };
  if (t === 'old' || t === 'oldest') return { kind: 'oldest' };
  if (t.startsWith('two_level_active')) {
    const m = /^two_level_active:(\d+):(\d+):(\d+)$/.exec(t);
    if (!m) fail(src, `expected two_level_active:<active warps>:<inner>:<outer>, got '${t}'`);
    const size = Number(m[1]);
    if (size < 1) fail(src, 'the active (ready) queue needs at least 1 warp');
    if (Number(m[2]) !== 0) fail(src, `inner prioritisation ${m[2]} is not implemented by GPGPU-Sim's two_level_active (only 0 = loose round robin; it aborts otherwise); for paper 000's two-level scheduler with GTO set policies.warpScheduler to {kind: twoLevel, ...}`);
    if (Number(m[3]) !== 1) fail(src, `outer prioritisation ${m[3]} is not implemented by GPGPU-Sim's two_level_active (only 1 = strict round robin; it aborts otherwise); for paper 000's two-level scheduler with GTO set policies.warpScheduler to {kind: twoLevel, ...}`);
    return { kind: 'twoLevelGpgpusim', readyQueueSize: size };
  }
  return fail(src, `warp scheduler '${t}' is not modelled (known: lrr, gto, old, two_level_active:<n>:<inner>:<outer>)`);
}
