/**
 * Trace instructions are timed by Accel-Sim's trace.config (issue 10 item 1): a `--gpu
 * gpgpusim.config` run loads the `gpgpusim.trace.config` beside it, and each SASS opcode's
 * category picks the latency / initiation pair (`trace_config::set_latency`) and the pipeline
 * (`scheduler_unit::cycle`: no DP units -> DP ops on the SFU; no INT units -> INT ops on SP).
 *
 * Expected numbers come from the GTX 1080 trace.config: `_dp 64,64`, `_sfu 21,8`, `_int 2,2`,
 * `_sp 2,1`, and gpgpusim.config `-gpgpu_num_dp_units 0`, `-gpgpu_num_sfu_units 1`; the
 * operand-collector pipeline adds 6 cycles between a producer's issue and its consumer's
 * (`OPERAND_PIPELINE_CYCLES`, from shader.cc's stage order). Each test
 * compares two one-warp kernels that differ by one instruction, so launch, fetch and drain cancel.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExecUnit, loadTraceConfig, SassArch, SassOpcodeMapper } from '../../src/frontends/accelsim/opcodes.ts';
import { runAccelSimTrace, traceConfigPath } from '../../src/scenario/trace-run.ts';

const cfgDir = 'data/accelsim-traces/gtx1080-config';
const gtx1080 = `${cfgDir}/gpgpusim.config`;
const root = mkdtempSync(join(tmpdir(), 'warpstate-unit-timing-'));
let n = 0;

/** A one-CTA, one-warp trace whose body is `body` (one `dst opcode srcs` triple per line). */
function trace(body: readonly string[]): string {
  const dir = join(root, `t${n++}`);
  mkdirSync(dir);
  const lines = body.map((b, i) => `${(8 * (i + 1)).toString(16).padStart(4, '0')} ffffffff ${b} 0 `);
  lines.push(`${(8 * (body.length + 1)).toString(16).padStart(4, '0')} ffffffff 0 EXIT 0 0 `);
  writeFileSync(join(dir, 'kernelslist.g'), 'kernel-1.traceg\n');
  writeFileSync(join(dir, 'kernel-1.traceg'), [
    '-kernel name = _Z1kv', '-kernel id = 1', '-grid dim = (1,1,1)', '-block dim = (32,1,1)', '-shmem = 0', '-nregs = 16',
    '-binary version = 61', '-cuda stream id = 0', '-shmem base_addr = 0x00007f2b5a000000', '-local mem base_addr = 0x00007f2b58000000',
    '-nvbit version = 1.5.5', '-accelsim tracer version = 4', '-enable lineinfo = 0', '',
    '#BEGIN_TB', '', 'thread block = 0,0,0', '', 'warp = 0', `insts = ${lines.length}`, ...lines, '', '#END_TB', '',
  ].join('\n'));
  return dir;
}

function cycles(body: readonly string[], traceConfig?: string, configOverrides: string[] = []): number {
  const r = runAccelSimTrace(trace(body), { gpu: { gpgpusimConfig: gtx1080 }, baseDir: '.', configOverrides, ...(traceConfig ? { traceConfig } : {}) });
  expect(r.engine.pendingWork()).toEqual([]);
  return r.engine.stats.value('gpu_sim_cycle') ?? NaN;
}

/** `count` independent instructions `op` writing R1, R2 ... from R10 (no dependences). */
const independent = (op: string, count: number): string[] => Array.from({ length: count }, (_, i) => `1 R${i + 1} ${op} 1 R10`);
/** `count` instructions `op`, each reading the previous one's result. */
const chain = (op: string, count: number): string[] => Array.from({ length: count }, (_, i) => `1 R${i + 1} ${op} 1 R${i}`);

describe('trace.config unit timing on the SM', () => {
  it('a gpgpusim.config run finds the gpgpusim.trace.config beside it', () => {
    const p = traceConfigPath({ gpu: { gpgpusimConfig: gtx1080 }, baseDir: '.' });
    expect(p).toMatch(/gtx1080-config\/gpgpusim\.trace\.config$/);
    expect(traceConfigPath({ gpu: { preset: 'gtx1080' }, baseDir: '.' })).toBeUndefined();
    expect(traceConfigPath({ gpu: { gpgpusimConfig: gtx1080 }, baseDir: '.', traceConfig: 'x/trace.config' })).toMatch(/x\/trace\.config$/);
  });

  it('each opcode takes its Accel-Sim category timing: Pascal branches are BRANCH_OP (int), Volta ones the BRA unit; EXIT 1,1', () => {
    const m = new SassOpcodeMapper({ timing: loadTraceConfig(`${cfgDir}/gpgpusim.trace.config`) });
    const at = (op: string, arch: SassArch) => {
      const i = m.lookup(op, arch, 'x');
      return [i.pipe, i.latency, i.initiation];
    };
    // pascal_opcode.h: BRA -> BRANCH_OP, timed by _int (2,2); volta_opcode.h: SPECIALIZED_UNIT_1_OP (spec_op_1 4,4)
    expect(at('BRA', SassArch.Pascal)).toEqual([ExecUnit.Int, 2, 2]);
    expect(at('BRA', SassArch.Volta)).toEqual([ExecUnit.Branch, 4, 4]);
    // EXIT_OPS has no trace.config entry: trace_config::set_latency leaves 1,1
    expect(at('EXIT', SassArch.Pascal)).toEqual([ExecUnit.Int, 1, 1]);
    expect(at('DFMA', SassArch.Pascal)).toEqual([ExecUnit.Dp, 64, 64]);
    expect(at('MUFU.RCP', SassArch.Pascal)).toEqual([ExecUnit.Sfu, 21, 8]);
    expect(at('FFMA', SassArch.Pascal)).toEqual([ExecUnit.Sp, 2, 1]);
    expect(at('IADD', SassArch.Pascal)).toEqual([ExecUnit.Int, 2, 2]);
  });

  it('DP ops share the one SFU (no DP units): each extra independent DADD costs the 64-cycle initiation interval', () => {
    // 4 DADDs back to back on 1 SFU, initiation 64: the 4th issues 3 x 64 = 192 cycles after the 1st,
    // so 4 take 64 cycles more than 3 (their latency, 64, overlaps the next one's wait).
    const three = cycles(independent('DADD', 3));
    const four = cycles(independent('DADD', 4));
    expect(four - three).toBe(64);
  });

  it('independent MUFUs are spaced by the SFU initiation interval (8)', () => {
    expect(cycles(independent('MUFU.RCP', 9)) - cycles(independent('MUFU.RCP', 8))).toBe(8);
  });

  it('a dependent chain grows by the unit latency plus the 6-cycle operand pipeline per instruction', () => {
    // GPGPU-Sim: issue -> ID_OC -> collector allocation -> bank read -> OC_EX -> unit (latency)
    // -> result port -> EX_WB write-back frees the scoreboard: the consumer issues latency + 6 later.
    expect(cycles(chain('MUFU.RCP', 5)) - cycles(chain('MUFU.RCP', 4))).toBe(21 + 6);
    expect(cycles(chain('DADD', 3)) - cycles(chain('DADD', 2))).toBe(64 + 6);
    // Two dependent FADDs (sp 2,1) per extra pair: 2 x (2 + 6).
    expect(cycles(chain('FADD', 6)) - cycles(chain('FADD', 4))).toBe(2 * (2 + 6));
  });

  it('dual issue needs two different pipelines (-gpgpu_dual_issue_diff_exec_units 1)', () => {
    // GTX 1080: -gpgpu_max_insn_issue_per_warp 2. Independent MUFUs all go to the one SFU, so the
    // unit rule never lets a pair issue together and the initiation interval (8) spaces them
    // anyway; independent FADD/MUFU pairs go to SP and SFU and may pair up.
    const pairs = (k: number): string[] => Array.from({ length: 2 * k }, (_, i) => (i % 2 === 0 ? `1 R${i + 1} FADD 1 R30` : `1 R${i + 1} MUFU.RCP 1 R30`));
    const fadds = (k: number): string[] => independent('FADD', k);
    const diff = cycles(fadds(24)) - cycles(fadds(8));
    const any = cycles(fadds(24), undefined, ['sm.dualIssueDiffUnits=false']) - cycles(fadds(8), undefined, ['sm.dualIssueDiffUnits=false']);
    // 16 more FADDs take 16 issue slots with the rule and 8 (in pairs) without: 8 cycles apart.
    expect(diff - any).toBe(16 - 16 / 2);
    // SP/SFU pairs: the rule allows them, so the setting makes no difference.
    expect(cycles(pairs(4))).toBe(cycles(pairs(4), undefined, ['sm.dualIssueDiffUnits=false']));
  });

  it('a different trace.config changes the timing (the file is read, not the built-ins)', () => {
    const cfg = join(root, 'slow-dp.config');
    writeFileSync(cfg, '-trace_opcode_latency_initiation_dp 64,100\n');
    expect(loadTraceConfig(cfg)[3]).toEqual({ latency: 64, initiation: 100 });
    expect(cycles(independent('DADD', 4), cfg) - cycles(independent('DADD', 3), cfg)).toBe(100);
  });
});
