/**
 * Parameters of the SM-side GPU units, derived from a {@link GpuConfig} (DESIGN.md §6).
 *
 * Opcode classes of the PTX IR map to GPGPU-Sim's latency tables this way (stated, since
 * GPGPU-Sim's own mapping is per opcode): `alu` -> fp.add (SP), `intMul` -> int.mul, `intDiv`
 * -> int.div, `other` (shfl, vote) -> int.shfl, on the INT pipeline when the config has one and
 * on SP otherwise; `sfu` -> sfu (SFU); `dp` -> dp.mad on the DP pipeline, or on the SFU when the
 * config has no DP units (GPGPU-Sim 4.x routing).
 */
import type { GpuConfig } from '../config/schema.ts';
import { maxWarpsPerSm } from '../config/schema.ts';
import type { ExecUnitSpec, ExecUnitsParams, OpClassTiming } from '../model/sm/exec-units.ts';
import type { TagArrayParams } from '../model/mem/tag-array.ts';
import type { GpuContext } from '../model/gpu-context.ts';
import type { SmIssueParams, SmIssueResources } from '../../machines/sm-issue/sm-issue.ts';
import { PROGRAM_MEM_START, type SmFetchParams } from '../../machines/sm-fetch/sm-fetch.ts';
import type { SmDecodeParams } from '../../machines/sm-decode/sm-decode.ts';
import type { SmExecParams } from '../../machines/sm-exec/sm-exec.ts';
import type { SmLsuParams } from '../../machines/sm-lsu/sm-lsu.ts';
import type { UnitInstanceConfig } from '../sim/unit.ts';
import { EXEC_UNIT_NAME } from '../frontends/accelsim/opcodes.ts';
import type { AnnotationOptions } from '../isa/annotations.ts';
import type { PhaseLatencyModel } from '../isa/phase.ts';
import { elfPolicyOptions } from '../model/sm/elf-policy.ts';

/**
 * Cycles an ALU instruction with register sources spends outside its unit from issue to the
 * scoreboard release in GPGPU-Sim's core pipeline (`shader_core_ctx::cycle` runs writeback,
 * execute, read_operands, issue in that order, one stage per cycle): 1 in the ID_OC pipeline
 * register, 1 for the collector-unit allocation, 1 for the bank read, 1 in the OC_EX register,
 * 1 from the unit's last stage to the EX_WB register, 1 for the write-back that frees the
 * scoreboard. A dependent instruction thus issues `latency + 6` cycles after its producer.
 */
export const OPERAND_PIPELINE_CYCLES = 6;

/**
 * How the static tables of a kernel (`GpuContext.staticTables`: phases, ELF priorities) are
 * computed for this config: phase lengths with the scheduler's latency model (spec R-P2:
 * `pipeline`, the default, prices an ALU-class instruction max(issue interval, its opcode class
 * latency) and anything else the issue interval; `unit` prices every instruction 1 cycle) and
 * saturation (R-P3); under the `elf` policy also the ELF options (004 §4, spec §2.7: program-point
 * slots, score bits, branches, recalculation rule R-E3; absent fields take the policy defaults).
 */
export function staticAnalysisOptions(config: GpuConfig): AnnotationOptions {
  const ws = config.policies.warpScheduler as { kind: string; phaseLatency?: 'pipeline' | 'unit'; maxPhaseDistance?: number };
  const phaseLatency: PhaseLatencyModel =
    ws.phaseLatency === 'unit' ? 'unit' : { kind: 'pipeline', issueIntervalCycles: config.sm.issueIntervalCycles, opClasses: execUnitsParams(config).opClasses ?? {} };
  const base: AnnotationOptions = ws.maxPhaseDistance !== undefined ? { phaseLatency, maxPhaseDistance: ws.maxPhaseDistance } : { phaseLatency };
  // ELF (004 §4, spec §2.7, R-E3): the policy's program-point slots, score width, branch
  // selection and recalculation rule shape the program points and recalculation codes.
  if (ws.kind === 'elf') {
    const e = elfPolicyOptions(ws as unknown as Record<string, unknown>);
    return { ...base, elf: { maxProgramPoints: e.programPoints, scoreBits: e.scoreBits, branches: e.branches, recalcRule: e.recalcRule } };
  }
  return base;
}

/** Execution pipelines and opcode-class timing of an SM. */
export function execUnitsParams(config: GpuConfig): ExecUnitsParams {
  const u = config.sm.units;
  const t = config.sm.opcodeTiming;
  const units: ExecUnitSpec[] = [{ name: 'sp', count: Math.max(1, u.sp.count), width: config.sm.warpSize }];
  if (u.sfu.count > 0) units.push({ name: 'sfu', count: u.sfu.count, width: config.sm.warpSize });
  if (u.dp.count > 0) units.push({ name: 'dp', count: u.dp.count, width: config.sm.warpSize });
  if (u.int.count > 0) units.push({ name: 'int', count: u.int.count, width: config.sm.warpSize });
  const intUnit = u.int.count > 0 ? 'int' : 'sp';
  const sfuUnit = u.sfu.count > 0 ? 'sfu' : 'sp';
  const dpUnit = u.dp.count > 0 ? 'dp' : sfuUnit;
  const cls = (unit: string, timing: { latency: number; initiation: number }): OpClassTiming => ({ unit, latency: timing.latency, initiation: timing.initiation });
  // Trace instructions name their unit class (EXEC_UNIT_NAME order); GPGPU-Sim's
  // scheduler_unit::cycle sends INT ops to SP without INT units and DP ops to the SFU without DP
  // units. warpstate has no tensor or specialised (BRA/TEX/UDP) pipelines: those run on the int
  // pipeline (Kepler/Pascal opcode maps never use them).
  const byName: Record<string, string | null> = { none: null, int: intUnit, sp: 'sp', dp: dpUnit, sfu: sfuUnit, tensor: 'sp', mem: null, branch: intUnit, tex: intUnit, udp: intUnit };
  return {
    units,
    warpSize: config.sm.warpSize,
    execClasses: EXEC_UNIT_NAME.map((n) => byName[n] ?? null),
    opClasses: {
      alu: cls('sp', t.fp.add),
      intMul: cls(intUnit, t.int.mul),
      intDiv: cls(intUnit, t.int.div),
      other: cls(intUnit, t.int.shfl),
      sfu: cls(sfuUnit, t.sfu),
      dp: cls(dpUnit, t.dp.mad),
    },
  };
}

/** Tag-array parameters of a cache geometry. */
export function tagArrayParams(g: GpuConfig['l1i']): TagArrayParams {
  return {
    sets: g.sets,
    ways: g.ways,
    lineBytes: g.lineBytes,
    setIndex: g.setIndex === 'fermiHash' && (g.sets === 32 || g.sets === 64) ? 'fermiHash' : g.setIndex === 'linear' ? 'linear' : 'xor',
    replacement: g.replacement,
    allocate: g.allocation === 'onFill' ? 'onFill' : 'onMiss',
  };
}

/**
 * The texture cache of a config (`-gpgpu_tex_cache:l1`, GPGPU-Sim's `tex_cache` unions): fragment
 * FIFO = `<mshr_entries>`, request FIFO = `<mshr_max_merge>`, ROB = `<mq>`, result FIFO =
 * `<fifo_entry>` (at least 1), hit latency = `latencyCycles` (at least 1).
 */
export function texCacheParams(g: NonNullable<GpuConfig['texCache']>): NonNullable<SmLsuParams['texCache']> {
  return {
    ...tagArrayParams(g),
    fragmentFifoEntries: g.mshrEntries,
    requestFifoEntries: g.mshrMaxMerge,
    robEntries: g.missQueueEntries,
    resultFifoEntries: Math.max(1, g.resultFifoEntries),
    hitLatency: Math.max(1, g.latencyCycles),
  };
}

/** Spec and resources of every SM-side unit of SM `smId` (FETCH, DECODE, ISSUE, EXEC, LSU). */
export function smUnitInstances(config: GpuConfig, context: GpuContext, smId: number, pollEveryCycle = false): { issue: UnitInstanceConfig<SmIssueParams, SmIssueResources>; fetch: UnitInstanceConfig<SmFetchParams>; decode: UnitInstanceConfig<SmDecodeParams>; exec: UnitInstanceConfig<SmExecParams>; lsu: UnitInstanceConfig<SmLsuParams> } {
  const p = smUnitParams(config, smId, context, pollEveryCycle);
  const lsu: SmLsuParams = {
    smId,
    sharedMemLatency: config.sharedMem.latencyCycles,
    constLatency: config.constCache?.latencyCycles ?? config.l1d.latencyCycles,
    l1dPortWidth: 1,
    coalescer: { mode: config.l1d.sectorBytes !== undefined ? 'sectored' : 'line' },
    sharedMem: { banks: config.sharedMem.banks, bankWidthBytes: 4, warpParts: config.sharedMem.warpParts, limitedBroadcast: config.sharedMem.limitedBroadcast },
    // GPGPU-Sim's L1T lives in the ldst_unit: texture fetches go through it when the config has one
    ...(config.texCache !== undefined ? { texCache: texCacheParams(config.texCache) } : { texLineBytes: config.l1d.sectorBytes !== undefined ? 32 : config.l1d.lineBytes }),
  };
  return { issue: { spec: p.issue, resources: { context } }, fetch: { spec: p.fetch }, decode: { spec: p.decode }, exec: { spec: p.exec }, lsu: { spec: lsu } };
}

/**
 * Bytes per instruction in the L1I address space: the kernels' own size (a SASS trace's PC
 * spacing, Accel-Sim fetching at the trace PCs), else {@link DEFAULT_INSTRUCTION_BYTES}. The
 * largest when kernels differ (one L1I layout per SM).
 */
function instructionBytesOf(context: GpuContext): number {
  let bytes = 0;
  for (const k of context.kernels) bytes = Math.max(bytes, k.kernel.instructionBytes ?? DEFAULT_INSTRUCTION_BYTES);
  return bytes > 0 ? bytes : DEFAULT_INSTRUCTION_BYTES;
}

/**
 * Instruction size of a kernel that states none (PTX): 16 bytes, the SASS PC step warpstate
 * writes PTX traces with (`SASS_PC_BYTES`), so a PTX run and its written trace fetch the same
 * L1I lines. GPGPU-Sim's PTX mode lays instructions 8 bytes apart: a stated difference.
 */
export const DEFAULT_INSTRUCTION_BYTES = 16;

function smUnitParams(config: GpuConfig, smId: number, context: GpuContext, pollEveryCycle = false): { issue: SmIssueParams; fetch: SmFetchParams; decode: SmDecodeParams; exec: SmExecParams } {
  const exec = execUnitsParams(config);
  const ws = config.policies.warpScheduler;
  const maxWarps = maxWarpsPerSm(config);
  return {
    issue: {
      smId,
      maxWarps,
      maxCtas: config.sm.maxCtas,
      schedulers: config.sm.schedulers,
      issueWidth: config.sm.issueWidth,
      issueIntervalCycles: config.sm.issueIntervalCycles,
      iBufferEntries: config.sm.iBufferEntries,
      policy: ws.kind,
      // The policy's own options: every field of policies.warpScheduler but its kind.
      policyOptions: (({ kind: _kind, ...options }) => options)(ws),
      // The spec type is the schema's (mutable arrays); the builder's value is read only.
      exec: exec as SmIssueParams['exec'],
      // GPGPU-Sim's register-read stage (operand collectors): a config that has one pays its
      // fixed pipeline depth (bank conflicts and collector shortage are not modelled).
      dualIssueDiffUnits: config.sm.dualIssueDiffUnits,
      operandPipelineCycles: config.sm.operandCollector !== undefined ? OPERAND_PIPELINE_CYCLES : 0,
      pollEveryCycle,
    },
    fetch: {
      fetchWidth: config.sm.fetchWidth,
      maxWarps,
      l1i: tagArrayParams(config.l1i),
      // Misses go through the memory system (FETCH memOut -> L1D -> interconnect -> L2); this
      // fixed latency serves only a FETCH whose memory ports are unbound.
      l1iMissLatencyCycles: config.l1i.latencyCycles + config.memPartitions.ropLatencyCycles + config.l2.latencyCycles,
      instructionBytes: instructionBytesOf(context),
      instBaseAddr: PROGRAM_MEM_START,
      smId,
      mshrEntries: config.l1i.mshrEntries,
      mshrMaxMerge: config.l1i.mshrMaxMerge,
      missQueueEntries: config.l1i.missQueueEntries,
      ...(config.policies.fetchScheduler !== undefined ? { fetchPolicy: config.policies.fetchScheduler.kind, schedulers: config.sm.schedulers } : {}),
      ...(config.l1i.prefetch?.kind === 'nextLine' && config.l1i.prefetch.mshrThreshold > 0 ? { prefetchMshrThreshold: config.l1i.prefetch.mshrThreshold } : {}),
    },
    decode: { decodeWidth: Math.max(1, config.sm.fetchThroughput) },
    exec: { unitNames: exec.units.map((x) => x.name) },
  };
}
