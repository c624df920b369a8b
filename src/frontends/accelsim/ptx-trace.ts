/**
 * Writing a PTX kernel scenario's dynamic instruction stream as an Accel-Sim trace that
 * Accel-Sim's trace-driven simulator reads unchanged (issue 5 item 4, issue 10 item 2), and that
 * warpstate reads back with the cycle count of the PTX run.
 *
 * The stream comes from the functional model (per warp, the order is the program order and does
 * not depend on timing for race-free kernels). One trace line per executed PTX instruction:
 * - opcode: the SASS name of {@link sassOpcodeFor} for the target architecture family (from the
 *   scenario's GPU, {@link sassTargetForGpu}); the header's `-binary version` selects that
 *   family's table in Accel-Sim;
 * - PC: `16 x instruction index` (SASS instruction size, {@link SASS_PC_BYTES}), so the reader's
 *   static index equals the PTX instruction index and fetch / iBuffer behaviour replays exactly;
 *   the `.func`s a kernel calls (directly or through pointers) follow its code, each at the next
 *   free index (in module order), so every static instruction has its own PC;
 * - registers: `R<index>` in the function's dense register space (PTX predicates included; a
 *   `.func`'s registers reuse the kernel's numbers, as SASS functions share the register file), at
 *   most {@link ACCELSIM_MAX_DST} destination (the first: a vector load's first register,
 *   `shfl`'s value and not its predicate) and {@link ACCELSIM_MAX_SRC} distinct sources (the
 *   first four), as Accel-Sim's parser asserts. Registers beyond those are not written: a
 *   kernel whose later instructions wait on a dropped register replays with fewer stalls (the
 *   library kernels' round trips are exact: `test/frontends/trace-timing.test.ts`);
 * - memory: the width per lane and the lanes' addresses (parameter loads: their offsets in the
 *   parameter space; surface accesses: their global addresses); texture fetches (`TEX`, `TLD4`) without.
 */
import { InputError } from '../../errors.ts';
import { WarpStepInfo } from '../../functional/step-info.ts';
import { Opcode, OpClass, type Instruction } from '../../isa/ir.ts';
import type { LoadedScenario } from '../../scenario/loader.ts';
import { prepareKernelScenario } from '../../scenario/kernel-run.ts';
import { estimateRegsPerThread } from '../../scenario/timing-run.ts';
import { ACCELSIM_MAX_DST, ACCELSIM_MAX_SRC, SASS_PC_BYTES, sassOpcodeFor, sassTargetForGpu, type SassTarget } from './sass-names.ts';
import { AccelSimTraceWriter, type WriterInstruction } from './writer.ts';

/** Options of {@link writePtxScenarioTrace}. */
export interface PtxTraceOptions {
  /** Architecture the trace is written for; default: from the scenario's GPU ({@link sassTargetForGpu}). */
  readonly target?: SassTarget;
  /**
   * Receives the device `printf` output of the kernels run to write the trace (per launch);
   * default: the process's standard output. The CLI discards it: the run that follows prints it.
   */
  readonly deviceOutput?: (text: string) => void;
}

const EMPTY = new Int32Array(0);

/** The first `max` distinct registers of `regs` (order kept). */
function firstDistinct(regs: Int32Array, max: number): Int32Array {
  if (regs.length === 0) return EMPTY;
  const out: number[] = [];
  for (let i = 0; i < regs.length && out.length < max; i++) if (!out.includes(regs[i]!)) out.push(regs[i]!);
  return Int32Array.from(out);
}

/**
 * Runs a kernel scenario functionally and writes its instruction stream to `dir`
 * (`kernelslist.g`, `kernel-N.traceg`), with one MemcpyHtoD per buffer.
 * @returns warp instructions written per kernel
 * @throws InputError when a register index does not fit the trace format (R0-R254, R255 is
 *   SASS's zero register), or when the scenario's GPU config cannot be read (see
 *   {@link sassTargetForGpu})
 */
export function writePtxScenarioTrace(loaded: LoadedScenario, dir: string, options: PtxTraceOptions = {}): number[] {
  const target = options.target ?? sassTargetForGpu(loaded.scenario.gpu, loaded.baseDir);
  const prepared = prepareKernelScenario(loaded, options.deviceOutput !== undefined ? { deviceOutput: options.deviceOutput } : {});
  const writer = new AccelSimTraceWriter(dir);
  const counts: number[] = [];
  try {
    for (const spec of loaded.scenario.buffers) {
      const addr = prepared.addresses.get(spec.name)!;
      const bytes = prepared.initial[spec.name]!.byteLength;
      writer.memcpyHtoD(addr, bytes);
    }
    const info = new WarpStepInfo();
    // Per static instruction: its registers as written, and its opcode per (space, width).
    const regsOf = new Map<Instruction, { dst: Int32Array; src: Int32Array }>();
    const names = new Map<Instruction, Map<number, string>>();
    prepared.launches.forEach((launch, k) => {
      const kernel = launch.kernel;
      // static index of instruction 0 of each function: the kernel first, then the others
      const fns = kernel.module.functions;
      const entry = kernel.entry.index;
      const pcBase = new Int32Array(fns.length);
      let next = fns[entry]!.instructions.length;
      for (let f = 0; f < fns.length; f++) {
        if (f === entry) continue;
        pcBase[f] = next;
        next += fns[f]!.instructions.length;
      }
      const [gx, gy] = kernel.grid;
      const kw = writer.beginKernel({
        name: launch.spec.entry,
        id: k + 1,
        gridDim: { x: kernel.grid[0], y: kernel.grid[1], z: kernel.grid[2] },
        blockDim: { x: kernel.block[0], y: kernel.block[1], z: kernel.block[2] },
        shmem: kernel.sharedBytes,
        nregs: estimateRegsPerThread(launch),
        cudaStreamId: launch.spec.stream,
        binaryVersion: target.binaryVersion,
        nvbitVersion: 'warpstate',
      });
      let total = 0;
      for (let c = 0; c < kernel.ctaCount; c++) {
        const cta = kernel.createCta(c, 0);
        const streams: WriterInstruction[][] = cta.warps.map(() => []);
        // Round robin over warps, respecting barriers (as runFunctional does).
        while (!cta.done) {
          for (let w = 0; w < cta.warps.length; w++) {
            const warp = cta.warps[w]!;
            while (warp.ready) {
              const fn = warp.functionIndex;
              warp.step(info);
              const ins = info.instruction!;
              for (const r of [...ins.dstRegs, ...ins.srcRegs]) {
                if (r > 254) throw new InputError({ file: launch.spec.ptx }, `register index ${r} does not fit the trace format (R0-R254)`, launch.spec.entry);
              }
              // texture fetches are written without addresses, as Accel-Sim's tracer writes TEX (sass-names.ts)
              const mem = (ins.opClass === OpClass.Load || ins.opClass === OpClass.Store || ins.opClass === OpClass.Atomic) && ins.op !== Opcode.Tex && ins.op !== Opcode.Tld4;
              const bytes = mem ? info.accessBytes : 0;
              let regs = regsOf.get(ins);
              if (regs === undefined) {
                regs = { dst: ins.dstRegs.length <= ACCELSIM_MAX_DST ? ins.dstRegs : ins.dstRegs.subarray(0, ACCELSIM_MAX_DST), src: firstDistinct(ins.srcRegs, ACCELSIM_MAX_SRC) };
                regsOf.set(ins, regs);
              }
              let byKey = names.get(ins);
              if (byKey === undefined) names.set(ins, (byKey = new Map()));
              const key = info.space * 4096 + bytes;
              let opcode = byKey.get(key);
              if (opcode === undefined) byKey.set(key, (opcode = sassOpcodeFor(ins, info.space, bytes, target, fn !== entry)));
              streams[w]!.push({
                pc: (pcBase[fn]! + info.pc) * SASS_PC_BYTES,
                activeMask: info.activeMask,
                opcode,
                dstRegs: regs.dst,
                srcRegs: regs.src,
                memWidth: mem ? info.accessBytes : 0,
                ...(mem ? { addresses: Array.from(info.addresses) } : {}),
              });
              total++;
              if (info.atBarrier) break;
            }
          }
        }
        kernel.releaseCta(cta);
        kw.writeCta({ id: { x: c % gx, y: Math.floor(c / gx) % gy, z: Math.floor(c / (gx * gy)) }, warps: streams });
      }
      kw.end();
      counts.push(total);
    });
  } finally {
    writer.close();
  }
  return counts;
}
