/**
 * Writing a PTX kernel scenario's dynamic instruction stream as an Accel-Sim trace (tracer
 * version 4 layout, PTX opcode names; issue 5 item 4), so other tools can read warpstate runs
 * and a written trace can be simulated again.
 *
 * The stream comes from the functional model (per warp, the order is the program order and does
 * not depend on timing for race-free kernels). PCs are written as `8 x instruction index`, so the
 * reader's static index equals the PTX instruction index and fetch / iBuffer behaviour replays
 * exactly. Registers are written as `R<index>` in the function's dense register space (PTX
 * predicates included). Opcodes are the PTX names with the resolved state space; where that
 * name would read back with a different execution class, a canonical name of the same class is
 * written instead (see {@link traceOpcodeFor}).
 */
import { InputError } from '../../errors.ts';
import { WarpStepInfo } from '../../functional/step-info.ts';
import { OPCODE_NAME, OpClass, STATE_SPACE_NAME, StateSpace, type Instruction } from '../../isa/ir.ts';
import type { LoadedScenario } from '../../scenario/loader.ts';
import { prepareKernelScenario } from '../../scenario/kernel-run.ts';
import { estimateRegsPerThread } from '../../scenario/timing-run.ts';
import { classifyPtxOpcode } from './opcodes.ts';
import { AccelSimTraceWriter, type WriterInstruction } from './writer.ts';

/** Bytes per PTX instruction in written PCs (GPGPU-Sim's PTX instruction size). */
export const PTX_PC_BYTES = 8;

const CANONICAL: Record<number, string> = {
  [OpClass.Alu]: 'add.s32',
  [OpClass.IntMul]: 'mul.lo.s32',
  [OpClass.IntDiv]: 'div.s32',
  [OpClass.Sfu]: 'sin.approx.f32',
  [OpClass.Dp]: 'add.f64',
  [OpClass.Barrier]: 'bar.sync',
  [OpClass.Branch]: 'bra',
  [OpClass.Membar]: 'membar.gl',
  [OpClass.Call]: 'call',
  [OpClass.Ret]: 'ret',
  [OpClass.Exit]: 'exit',
  [OpClass.Other]: 'shfl.sync',
};

/**
 * The opcode name written for an executed instruction: its PTX name with the resolved state
 * space for memory instructions, or a canonical name of the same class when the PTX name alone
 * would classify differently on reading back.
 */
export function traceOpcodeFor(ins: Pick<Instruction, 'op' | 'opText' | 'opClass' | 'longLatency'>, space: StateSpace): string {
  const base = OPCODE_NAME[ins.op] ?? 'op';
  const mem = ins.opClass === OpClass.Load || ins.opClass === OpClass.Store || ins.opClass === OpClass.Atomic;
  const spaceName = STATE_SPACE_NAME[space === StateSpace.Generic ? StateSpace.Global : space] ?? 'global';
  const candidates = mem ? [`${base === 'ldu' ? 'ld' : base}.${spaceName}`] : [ins.opText, base];
  for (const name of candidates) {
    const c = classifyPtxOpcode(name);
    if (c !== undefined && c.opClass === ins.opClass && (!mem || c.longLatency === ins.longLatency)) return name;
  }
  if (mem) {
    const fallback = ins.opClass === OpClass.Load ? `ld.${spaceName}` : ins.opClass === OpClass.Store ? `st.${spaceName}` : `atom.${spaceName}.add`;
    return fallback;
  }
  return CANONICAL[ins.opClass] ?? 'add.s32';
}

/**
 * Runs a kernel scenario functionally and writes its instruction stream to `dir`
 * (`kernelslist.g`, `kernel-N.traceg`), with one MemcpyHtoD per buffer.
 * @returns warp instructions written per kernel
 * @throws InputError when a register index does not fit the trace format (R0-R254)
 */
export function writePtxScenarioTrace(loaded: LoadedScenario, dir: string): number[] {
  const prepared = prepareKernelScenario(loaded);
  const writer = new AccelSimTraceWriter(dir);
  const counts: number[] = [];
  try {
    for (const spec of loaded.scenario.buffers) {
      const addr = prepared.addresses.get(spec.name)!;
      const bytes = prepared.initial[spec.name]!.byteLength;
      writer.memcpyHtoD(addr, bytes);
    }
    const info = new WarpStepInfo();
    prepared.launches.forEach((launch, k) => {
      const kernel = launch.kernel;
      const [gx, gy] = kernel.grid;
      const kw = writer.beginKernel({
        name: launch.spec.entry,
        id: k + 1,
        gridDim: { x: kernel.grid[0], y: kernel.grid[1], z: kernel.grid[2] },
        blockDim: { x: kernel.block[0], y: kernel.block[1], z: kernel.block[2] },
        shmem: kernel.sharedBytes,
        nregs: estimateRegsPerThread(launch),
        cudaStreamId: launch.spec.stream,
        // The PTX target (nvcc -arch=compute_75); opcodes are PTX names, classified as PTX on reading.
        binaryVersion: 75,
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
              if (fn !== 0) throw new InputError({ file: launch.spec.ptx }, 'kernels that call .func cannot be written as traces yet', launch.spec.entry);
              const mem = ins.opClass === OpClass.Load || ins.opClass === OpClass.Store || ins.opClass === OpClass.Atomic;
              streams[w]!.push({
                pc: info.pc * PTX_PC_BYTES,
                activeMask: info.activeMask,
                opcode: traceOpcodeFor(ins, info.space),
                dstRegs: ins.dstRegs,
                srcRegs: ins.srcRegs,
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
