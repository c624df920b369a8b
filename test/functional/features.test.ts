/**
 * PTX features real benchmark suites need (issue 10 item 4), run from nvcc 13 output
 * (fixtures/features.cu -> features.ptx) on the functional model and, through scenarios, on the
 * timing model: `.pred` immediates, `bar.red` (`__syncthreads_count/and/or`), `nanosleep`,
 * `bmsk`, `trap`, `assert` (`__assertfail`) and device `printf` (`vprintf`). Expected values are
 * derived by hand from the CUDA source and the PTX ISA semantics.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parsePtx } from '../../src/isa/parser.ts';
import { Opcode } from '../../src/isa/ir.ts';
import { FunctionalFault, FunctionalKernel, GlobalMemory, runFunctional, type KernelArg } from '../../src/functional/index.ts';
import { formatDevicePrintf } from '../../src/functional/printf.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { runCli } from '../helpers/cli.ts';
import { launch, ptx } from './helpers.ts';

const dir = fileURLToPath(new URL('./fixtures/', import.meta.url));
const module = parsePtx(readFileSync(join(dir, 'features.ptx'), 'utf8'), 'features.ptx');

function run(entry: string, grid: number, block: number, args: (m: GlobalMemory) => KernelArg[], ctas?: number[]) {
  const memory = new GlobalMemory();
  let printed = '';
  const kernel = new FunctionalKernel({ module, entry, grid, block, args: args(memory), memory, deviceOutput: (t) => void (printed += t) });
  const result = runFunctional(kernel, ctas ? { ctas } : {});
  return { memory, printed, result };
}

function fault(f: () => unknown): FunctionalFault {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(FunctionalFault);
    return e as FunctionalFault;
  }
  throw new Error('expected a FunctionalFault');
}

describe('.pred immediates', () => {
  it('predflag (mov.pred %p, -1 / 0 from nvcc): steps of the search loop + 100 when t is not in in[0..n)', () => {
    let out = 0;
    const { memory } = run('predflag', 1, 12, (m) => [(out = m.allocate(48)), m.upload(new Int32Array([3, 0, 7, 3, 9, -1])), 5]);
    // first loop stops at the first j with in[j] == t (or j == n = 5) after j + 1 steps
    const want = Array.from({ length: 12 }, (_, t) => ({ 0: 2, 3: 1, 7: 3, 9: 5 })[t] ?? 106);
    expect(Array.from(memory.readI32(out, 12))).toEqual(want);
  });

  it('predflag with n = 0: the mov.pred %p, -1 before the skipped loop gives flag = true', () => {
    let out = 0;
    const { memory } = run('predflag', 1, 4, (m) => [(out = m.allocate(16)), m.upload(new Int32Array([2])), 0]);
    // one step (0 >= n), flag stays true: 1 + 100
    expect(Array.from(memory.readI32(out, 4))).toEqual([101, 101, 101, 101]);
  });

  it('predimm: xor.pred q, p, -1 / and.pred q, p, 1 / or.pred q, p, 0 / not.pred q, 0', () => {
    let out = 0;
    const { memory } = run('predimm', 1, 4, (m) => [(out = m.allocate(16))]);
    // p = t & 1: 8 * !p + 4 * p + 2 * p + 1
    expect(Array.from(memory.readI32(out, 4))).toEqual([9, 7, 9, 7]);
  });

  it('any non-zero integer is true, 0 is false (PTX ISA: predicates from integers as in C)', () => {
    const m = ptx(`.visible .entry k(.param .u64 o) {
      .reg .pred %p<3>; .reg .b32 %r<3>; .reg .b64 %rd<2>;
      ld.param.u64 %rd1, [o];
      mov.pred %p1, 5;
      xor.pred %p2, %p1, 0x80000000;
      selp.u32 %r1, 1, 0, %p1;
      selp.u32 %r2, 1, 0, %p2;
      st.global.v2.u32 [%rd1], {%r1, %r2};
      ret; }`);
    let out = 0;
    const { mem } = launch({ module: m, entry: 'k', block: 1, args: (mm) => [(out = mm.allocate(8))] });
    expect(Array.from(mem.readU32(out, 2))).toEqual([1, 0]);
  });
});

describe('bar.red (__syncthreads_count / _and / _or)', () => {
  it('barred: 2 CTAs of 64 threads, every thread gets its CTA reduction', () => {
    let out = 0;
    // CTA 0: v = 0..63 (53 above 10, one 0, 42 present); CTA 1: v = 5 everywhere
    const { memory } = run('barred', 2, 64, (m) => [(out = m.allocate(128 * 12)), m.upload(new Int32Array(128).map((_, i) => (i < 64 ? i : 5)))]);
    const r = memory.readI32(out, 384);
    for (let i = 0; i < 128; i++) expect([i, ...r.slice(3 * i, 3 * i + 3)]).toEqual(i < 64 ? [i, 53, 0, 1] : [i, 0, 1, 0]);
  });

  it('a partial last warp (48 threads) reduces only the threads that exist', () => {
    let out = 0;
    const { memory } = run('barred', 1, 48, (m) => [(out = m.allocate(48 * 12)), m.upload(new Int32Array(48).map((_, i) => i + 1))]);
    // v = 1..48: 38 above 10, all > 0, 42 present
    const r = memory.readI32(out, 144);
    for (let i = 0; i < 48; i++) expect(Array.from(r.slice(3 * i, 3 * i + 3))).toEqual([38, 1, 1]);
  });

  it('with a thread count and a negated predicate (barrier.red.or.pred p, 1, 64, !c)', () => {
    const m = ptx(`.visible .entry k(.param .u64 o) {
      .reg .pred %p<4>; .reg .b32 %r<5>; .reg .b64 %rd<4>;
      ld.param.u64 %rd1, [o];
      mov.u32 %r1, %tid.x;
      setp.ne.u32 %p1, %r1, 17;
      barrier.red.or.pred %p2, 1, 64, !%p1;
      bar.red.popc.u32 %r2, 2, %p1;
      bar.red.and.pred %p3, 3, !%p1;
      selp.u32 %r3, 1, 0, %p2;
      selp.u32 %r4, 1, 0, %p3;
      mul.wide.u32 %rd2, %r1, 12;
      add.s64 %rd3, %rd1, %rd2;
      st.global.u32 [%rd3], %r3;
      st.global.u32 [%rd3+4], %r2;
      st.global.u32 [%rd3+8], %r4;
      ret; }`);
    let out = 0;
    const { mem } = launch({ module: m, entry: 'k', block: 64, args: (mm) => [(out = mm.allocate(64 * 12))] });
    // !p1 is true for thread 17 only: or = 1, popc(p1) = 63, and(!p1) = 0
    const r = mem.readU32(out, 192);
    for (let t = 0; t < 64; t++) expect(Array.from(r.slice(3 * t, 3 * t + 3))).toEqual([1, 63, 0]);
  });
});

describe('nanosleep and bmsk', () => {
  it('nanosleep has no functional effect; the step reports the ns asked for (largest lane, capped at 1 ms)', () => {
    for (const [ns, want] of [
      [1500, 1500],
      [5_000_000, 1_000_000],
    ]) {
      const memory = new GlobalMemory();
      const out = memory.allocate(128);
      const sleeps: number[] = [];
      const k = new FunctionalKernel({ module, entry: 'sleepk', grid: 1, block: 32, args: [out, ns!], memory });
      runFunctional(k, { onStep: (info) => void (info.instruction?.op === Opcode.Nanosleep ? sleeps.push(info.sleepNs) : info.sleepNs === 0 || sleeps.push(-1)) });
      expect(sleeps).toEqual([want]);
      expect(Array.from(memory.readI32(out, 32))).toEqual(Array.from({ length: 32 }, (_, t) => t + 1));
    }
  });

  it('bmsk.clamp.b32 / bmsk.wrap.b32 (PTX ISA bmsk semantics)', () => {
    const a = [1, 0, 4, 28, 33, 0, 31, 5];
    const b = [2, 32, 0, 8, 1, 31, 1, 37];
    let out = 0;
    const { memory } = run('bmskk', 1, 8, (m) => [(out = m.allocate(64)), m.upload(new Uint32Array(a)), m.upload(new Uint32Array(b))]);
    // [clamp, wrap] per (a, b): (1,2) bits 1-2; (0,32) clamp: all from bit 0, wrap: width 0; (4,0)
    // width 0; (28,8) cut at bit 31; (33,1) clamp: position >= 32, wrap: bit 1; (0,31) bits 0-30;
    // (31,1) bit 31; (5,37) clamp: from bit 5 up, wrap: width 5 -> bits 5-9
    const want = [0x6, 0x6, 0xffffffff, 0, 0, 0, 0xf0000000, 0xf0000000, 0, 0x2, 0x7fffffff, 0x7fffffff, 0x80000000, 0x80000000, 0xffffffe0, 0x3e0];
    expect(Array.from(memory.readU32(out, 16))).toEqual(want);
  });
});

describe('trap and assert', () => {
  it('trap: a fault naming kernel, CTA, thread and the PTX line', () => {
    const f = fault(() => run('trapk', 1, 32, (m) => [m.allocate(128), 5]));
    expect(f.details).toMatchObject({ kind: 'trap', kernel: 'trapk', cta: [0, 0, 0], thread: [5, 0, 0], warp: 0, lane: 5, opText: 'trap' });
    expect(module.functions[module.functionByName.get('trapk')!]!.instructions[f.details.pc!]!.op).toBe(Opcode.Trap);
    expect(f.message).toContain(`features.ptx:${f.details.line}: trap in kernel trapk, CTA (0,0,0), thread (5,0,0)`);
  });

  it('no lane traps: the kernel runs to the end', () => {
    let out = 0;
    const { memory } = run('trapk', 1, 32, (m) => [(out = m.allocate(128)), 40]);
    expect(Array.from(memory.readI32(out, 32))).toEqual(new Array(32).fill(1));
  });

  it('assert: the message, file, line and function nvcc passes to __assertfail', () => {
    const f = fault(() => run('assertk', 1, 64, (m) => [m.allocate(256), 37]));
    const line = readFileSync(join(dir, 'features.cu'), 'utf8').split('\n').findIndex((l) => l.includes('assert(t != bad)')) + 1;
    expect(f.details).toMatchObject({ kind: 'assert', kernel: 'assertk', thread: [37, 0, 0], warp: 1, lane: 5, assertion: 't != bad', sourceFile: 'features.cu', sourceLine: line });
    expect(f.message).toContain(`features.cu:${line}: void assertk(int *, int): Assertion \`t != bad\` failed in kernel assertk, CTA (0,0,0), thread (37,0,0)`);
  });
});

describe('device printf', () => {
  const lines = (cta: number) =>
    [0, 1, 2].map((t) => `cta ${cta} thread ${t}: ${3 * t} ${(255 * t).toString(16)} ${(1.5 * t).toFixed(2).padStart(5)} 1.500000e+00 1.5 str ${'ABC'[t]} ${-5 * t} 123456789012 -7 ${t}\n`);

  it('printk: formatted per thread, written after the kernel by CTA then thread', () => {
    const { printed } = run('printk', 2, 32, (m) => [m.allocate(256), 1.5]);
    expect(printed).toBe([...lines(0), ...lines(1)].join(''));
  });

  it('the order does not depend on the order CTAs ran in', () => {
    const { printed } = run('printk', 2, 32, (m) => [m.allocate(256), 1.5], [1, 0]);
    expect(printed).toBe([...lines(0), ...lines(1)].join(''));
  });

  it('vprintf returns the number of arguments to the program', () => {
    const m = ptx(`.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
      .global .align 1 .b8 $str[8] = {37, 100, 32, 37, 100, 10, 0};
      .visible .entry k(.param .u64 o) {
        .local .align 8 .b8 depot[8];
        .reg .b32 %r<4>; .reg .b64 %rd<6>;
        ld.param.u64 %rd1, [o];
        mov.u64 %rd2, depot; cvta.local.u64 %rd3, %rd2;
        mov.u32 %r1, 7; mov.u32 %r2, -3;
        st.local.v2.u32 [%rd2], {%r1, %r2};
        mov.u64 %rd4, $str; cvta.global.u64 %rd5, %rd4;
        { .param .b64 param0; st.param.b64 [param0+0], %rd5;
          .param .b64 param1; st.param.b64 [param1+0], %rd3;
          .param .b32 retval0;
          call.uni (retval0), vprintf, (param0, param1);
          ld.param.b32 %r3, [retval0+0]; }
        st.global.u32 [%rd1], %r3;
        ret; }`);
    let out = 0;
    let printed = '';
    const memory = new GlobalMemory();
    out = memory.allocate(4);
    runFunctional(new FunctionalKernel({ module: m, entry: 'k', grid: 1, block: 1, args: [out], memory, deviceOutput: (t) => void (printed += t) }));
    expect(printed).toBe('7 -3\n');
    expect(memory.readU32(out, 1)[0]).toBe(2);
  });

  it('formats as C printf: flags, width, precision, lengths, exact float rounding', () => {
    const f64 = (x: number): [8, bigint] => [8, new BigUint64Array(new Float64Array([x]).buffer)[0]!];
    const fmt = (s: string, args: [4 | 8, bigint][]): string => {
      const buf = new DataView(new ArrayBuffer(256));
      let off = 0;
      for (const [size, v] of args) {
        off = Math.ceil(off / size) * size;
        if (size === 4) buf.setUint32(off, Number(BigInt.asUintN(32, v)), true);
        else buf.setBigUint64(off, BigInt.asUintN(64, v), true);
        off += size;
      }
      return formatDevicePrintf(s, { arg: (o, size) => (size === 4 ? BigInt(buf.getUint32(o, true)) : buf.getBigUint64(o, true)), string: () => 'hello' }).text;
    };
    expect(fmt('%d|%5d|%-5d|%05d|%+d|% d|%.3d', [[4, -42n], [4, 42n], [4, 42n], [4, -42n], [4, 7n], [4, 7n], [4, 5n]])).toBe('-42|   42|42   |-0042|+7| 7|005');
    expect(fmt('%u %x %X %#x %o %#o %08.3x', [[4, -1n], [4, 255n], [4, 255n], [4, 255n], [4, 8n], [4, 8n], [4, 31n]])).toBe('4294967295 ff FF 0xff 10 010      01f');
    // hh/h convert the int argument to char/short: 300 -> 44, 70000 -> 4464
    expect(fmt('%lld %llu %ld %hhd %hd', [[8, -5n], [8, -1n], [8, -7n], [4, 300n], [4, 70000n]])).toBe('-5 18446744073709551615 -7 44 4464');
    // 2.675 is 2.67499999999999982236431605997495353221893310546875 in binary: rounds down
    expect(fmt('%f %.2f %10.3f %-10.1f|', [f64(3.14159), f64(2.675), f64(-1.5), f64(2.25)])).toBe('3.141590 2.67     -1.500 2.2       |');
    // ties of exact binary values round half to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2; 2.25 -> 2.2 above
    expect(fmt('%.0f %.0f %.0f %f', [f64(0.5), f64(1.5), f64(2.5), f64(1e22)])).toBe('0 2 2 10000000000000000000000.000000');
    expect(fmt('%e %.0e %E %g %g %g %g %G', [f64(12345.678), f64(2.5), f64(1e-300), f64(100000), f64(1e6), f64(0.0001), f64(1e-5), f64(1e100)])).toBe('1.234568e+04 2e+00 1.000000E-300 100000 1e+06 0.0001 1e-05 1E+100');
    expect(fmt('%g %#g %#.0f %.3g %5.1f %e', [f64(0), f64(1.5), f64(3), f64(0.0001234567), f64(-0.04), f64(0)])).toBe('0 1.50000 3. 0.000123  -0.0 0.000000e+00');
    expect(fmt('%f %F %f', [f64(Infinity), f64(-Infinity), f64(NaN)])).toBe('inf -INF nan');
    expect(fmt('%c%c %s %.2s %p %p %s %%', [[4, 65n], [4, 98n], [8, 1000n], [8, 1000n], [8, 0x7f00n], [8, 0n], [8, 0n]])).toBe('Ab hello he 0x7f00 (nil) (null) %');
    expect(fmt('%a %a %.1a %A', [f64(1), f64(0.1), f64(1.5), f64(-2)])).toBe('0x1p+0 0x1.999999999999ap-4 0x1.8p+0 -0X1P+1');
    expect(fmt('%*d|%-*d|%.*f', [[4, 5n], [4, 42n], [4, 5n], [4, 42n], [4, 2n], f64(3.14159)])).toBe('   42|42   |3.14');
  });
});

describe('nvcc 13 output of features.cu', () => {
  const nvcc = ['/usr/local/bin/nvcc', '/usr/local/cuda/bin/nvcc'].find((p) => existsSync(p));
  it.runIf(nvcc !== undefined)('recompiled, it parses and runs barred the same way', { timeout: 120_000 }, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'warpstate-features-'));
    try {
      const out = join(tmp, 'f.ptx');
      execFileSync(nvcc!, ['-arch=compute_75', '-ptx', join(dir, 'features.cu'), '-o', out], { stdio: 'pipe' });
      const fresh = parsePtx(readFileSync(out, 'utf8'), 'f.ptx');
      expect(fresh.functions.map((f) => f.name)).toEqual(module.functions.map((f) => f.name));
      const memory = new GlobalMemory();
      const o = memory.allocate(64 * 12);
      runFunctional(new FunctionalKernel({ module: fresh, entry: 'barred', grid: 1, block: 64, args: [o, memory.upload(new Int32Array(64).fill(11))], memory }));
      expect(Array.from(memory.readI32(o, 3))).toEqual([64, 1, 0]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('timing mode', () => {
  afterEach(() => vi.restoreAllMocks());

  it('bar.red releases like bar.sync and writes every thread the reduction', () => {
    const r = runKernelScenarioTiming(loadScenario(join(dir, 'features-barred.yaml'), ['mode=timing']));
    // in = iota 0..127: CTA 0 as above; CTA 1 (64..127): all 64 above 10 and > 0, no 42
    const out = r.buffers.out!;
    for (let i = 0; i < 128; i++) expect([i, out[3 * i], out[3 * i + 1], out[3 * i + 2]]).toEqual(i < 64 ? [i, 53, 0, 1] : [i, 64, 1, 0]);
    expect(r.engine.stats.value('gpu_tot_ctas_done')).toBe(2);
  });

  it('nanosleep keeps the warp from issuing for the ns asked for, in core cycles', () => {
    const cycles = (ns: number) => {
      const r = runKernelScenarioTiming(loadScenario(join(dir, 'features-sleepk.yaml'), ['mode=timing', `launches[0].args[1].u32=${ns}`]));
      return { cycles: r.engine.stats.value('kernel[0].gpu_sim_cycle')!, mhz: r.config.clocks.core };
    };
    const slept = cycles(2000);
    const awake = cycles(0);
    // 2000 ns at the core clock; the instruction after the sleep would have waited a few cycles
    // for its fetch anyway, and the sleep hides those
    const want = (2000 * slept.mhz) / 1000;
    expect(slept.cycles - awake.cycles).toBeGreaterThan(want - 8);
    expect(slept.cycles - awake.cycles).toBeLessThanOrEqual(want + 1);
  });

  it('printf output is printed after the kernel on the CLI\'s output, same text as the functional run', async () => {
    let stdout = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true));
    const r = await runCli(['run', join(dir, 'features-printk.yaml'), '--set', 'mode=timing', '-q']);
    expect(r.code).toBe(0);
    const lines = (cta: number) => [0, 1, 2].map((t) => `cta ${cta} thread ${t}: ${3 * t} ${(255 * t).toString(16)} ${(1.5 * t).toFixed(2).padStart(5)} 1.500000e+00 1.5 str ${'ABC'[t]} ${-5 * t} 123456789012 -7 ${t}\n`);
    // the device output goes to the caller's output stream (before the checks), never to process.stdout
    expect(r.out.slice(0, r.out.indexOf('check PASS'))).toBe([...lines(0), ...lines(1)].join(''));
    expect(stdout).toBe('');
  });

  it('trap and assert stop the run with exit 3 and partial statistics naming CTA and thread', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'warpstate-trap-'));
    try {
      for (const [name, kind, thread] of [
        ['trapk', 'trap', [5, 0, 0]],
        ['assertk', 'assert', [37, 0, 0]],
      ] as const) {
        const stats = join(tmp, `${name}.json`);
        const r = await runCli(['run', join(dir, `features-${name}.yaml`), '--set', 'mode=timing', '--stats', stats, '-q']);
        expect(r.code).toBe(3);
        expect(r.err).toContain(`in kernel ${name}, CTA (0,0,0), thread (${thread.join(',')})`);
        expect(r.err).not.toMatch(/\n\s+at /);
        const doc = JSON.parse(readFileSync(stats, 'utf8'));
        expect(doc.stop).toMatchObject({ reason: 'error', partial: true, report: { kind, kernel: name, thread } });
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
