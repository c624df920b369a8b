/**
 * Bad input is a clean exit 2 naming the file or argument (issue 9 items 2 and 5): YAML alias
 * bombs (top level and inside a unit's params) and seeds that are not integers in range.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

/** Nine levels of nine aliases: 9^9 (about 387 million) nodes if expanded. */
function bomb(indent: string): string[] {
  const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const lines = [`${indent}a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]`];
  for (let i = 1; i < levels.length; i++) lines.push(`${indent}${levels[i]}: &${levels[i]} [${Array(9).fill(`*${levels[i - 1]}`).join(', ')}]`);
  return lines;
}

function file(name: string, text: string): string {
  const p = join(mkdtempSync(join(tmpdir(), 'warpstate-bad-')), name);
  writeFileSync(p, text);
  return p;
}

describe('bad input exits 2 with the file or argument named', () => {
  it('a YAML alias bomb at the top level', async () => {
    const f = file('bomb.yaml', [...bomb(''), 'name: [*h, *h, *h, *h, *h, *h, *h, *h, *h]'].join('\n') + '\n');
    const r = await runCli(['run', f]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${f}: YAML aliases expand too far`);
    expect(r.err).not.toContain('    at ');
  });

  it('a YAML alias bomb inside a unit\'s params', async () => {
    const f = file('net.yaml', ['name: net', 'clocks: { core: 1GHz }', 'units:', '  - name: MEM', '    kind: fixedLatencyMemory', '    params:', ...bomb('      '), 'links: []'].join('\n') + '\n');
    const r = await runCli(['run', f]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('YAML aliases expand too far');
  });

  it('a PTX path naming /dev/zero is refused after 64 MiB, not read until memory runs out', async () => {
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'launches[0].ptx=/dev/zero', '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: scenarios\/k-vecadd\.yaml:\d+:\d+: launches\[0\]\.ptx: PTX file \/dev\/zero: larger than 64 MiB/);
    expect(r.err).not.toContain('    at ');
  });

  it.each([['--max-cycles', '10'], ['--until', '1us']])('%s on a functional run is refused (it has no cycles), not ignored', async (flag, value) => {
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', flag, value, '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: ${flag}: needs a timing run (a functional run has no cycles; it is capped by the scenario field maxWarpInstructions)\n`);
  });

  it.each(['1.5', '1e99', '-1', 'seven'])('--seed %s is refused, not truncated', async (seed) => {
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--seed', seed, '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--seed: must be an integer from 0 to 4294967295, got '${seed}'`);
  });
});

describe('output paths that cannot be written are reported once, with the path and the OS error', () => {
  it.each([['--stats'], ['--trace'], ['--perfetto']])('%s /dev/full (a full disk): exit 2, ENOSPC named', async (flag) => {
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', flag, '/dev/full', '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('/dev/full: cannot write output file (ENOSPC: no space left on device');
    expect(r.err.match(/cannot write output file/g)).toHaveLength(1);
    expect(r.err).not.toContain('    at ');
  });

  it('a directory that cannot be created fails at once (no hang), and what can be written is written', async () => {
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--stats', '/proc/warpstate-none/stats.json', '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('/proc/warpstate-none/stats.json: cannot write output file (ENOENT');
    const stats = join(mkdtempSync(join(tmpdir(), 'warpstate-out-')), 'stats.json');
    const t = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--trace', '/dev/full', '--stats', stats, '-q']);
    expect(t.code).toBe(2);
    expect(JSON.parse(readFileSync(stats, 'utf8')).stats.gpu_sim_cycle).toBeGreaterThan(0);
  });
});

describe('config values are bounded to what a GPU and a run can have', () => {
  it.each([
    ['sm.count=100000', 'sm.count: Too big: expected number to be <=1024'],
    ['sm.count=1e12', 'sm.count: Too big'],
    ['sm.maxWarps=1e12', 'sm.maxWarps: Too big: expected number to be <=256'],
    ['l1d.mshrEntries=1e12', 'l1d.mshrEntries: Too big'],
  ])('--config-set %s is refused at once, naming the field', async (set, message) => {
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--config-set', set, '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });
});

describe('override keys cannot reach an object prototype', () => {
  it.each([
    ['--config-set', '__proto__.x=1', "'__proto__' is not a config field"],
    ['--config-set', 'sm.constructor=1', "'constructor' is not a config field"],
    ['--set', '__proto__.polluted=1', "'__proto__' is not a scenario field"],
  ])('%s %s is refused (exit 2) and pollutes nothing', async (flag, value, message) => {
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', flag, value, '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('a port no link connects is an input error naming the links field, not a machine failure', async () => {
    const net = ['name: net', 'clocks: { core: 1GHz }', 'units:', '  - { name: GEN, kind: trafficGenerator, params: { requests: 5 } }', '  - { name: MEM, kind: fixedLatencyMemory, params: { latencyCycles: 7 } }', 'links:', '  - { from: GEN.req, to: MEM.req }'];
    const f = file('open-port.yaml', net.join('\n') + '\n');
    const r = await runCli(['run', f, '-q']);
    expect(r.code).toBe(2);
    // MEM.rsp (out) and GEN.rsp (in) are both left open; GEN.ctrl is optional.
    expect(r.err).toContain(`${f}:7:3: links: no link connects ports GEN.rsp, MEM.rsp;`);
    expect(r.err).not.toContain('    at ');
    const ok = file('closed.yaml', [...net, '  - { from: MEM.rsp, to: GEN.rsp }', 'checks:', '  - { stat: GEN.completed, op: "==", value: 5 }'].join('\n') + '\n');
    expect((await runCli(['run', ok, '-q'])).code).toBe(0);
  });

  it('--write-trace into a path under a file: exit 2 with ENOTDIR and the path', async () => {
    const f = file('plain-file', 'x');
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--write-trace', join(f, 'trace'), '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(f, 'trace')}: cannot write output file (ENOTDIR`);
    expect(r.err).not.toContain('    at ');
  });

  it('one launch repeated 50 times runs to the end on the timing model (it once hung)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-dup-'));
    writeFileSync(join(dir, 'k.ptx'), readFileSync('test/cli/fixtures/fault.ptx', 'utf8'));
    const launch = '  - { ptx: k.ptx, entry: fill, grid: [1, 1, 1], block: [32, 1, 1], args: [ { buffer: out } ] }';
    const f = join(dir, 'dup.yaml');
    writeFileSync(f, ['name: dup', 'mode: timing', 'gpu: { preset: gtx480, set: [sm.count=1] }', 'buffers:', '  - { name: out, type: u32, count: 32 }', 'launches:', ...Array(50).fill(launch)].join('\n') + '\n');
    const stats = join(dir, 'stats.json');
    const r = await runCli(['run', f, '--stats', stats, '-q']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    // Each launch is one warp of 7 instructions (ld.param, cvta, mov, mul.wide, add, st, ret).
    expect(doc.stats['kernel[49].warp_insts']).toBe(7);
    expect(doc.stats.gpu_tot_warp_insts).toBe(350);
    expect(doc.stats.gpu_tot_ctas_done).toBe(50);
  });

  describe('kernel scenario sizes a real GPU and a real run can have', () => {
    const base = (over: { count?: string; grid?: string; block?: string; type?: string }) =>
      [
        'name: sizes',
        'mode: functional',
        'buffers:',
        `  - { name: a, type: ${over.type ?? 'f32'}, count: ${over.count ?? '64'} }`,
        'launches:',
        `  - { ptx: k.ptx, entry: fill, grid: ${over.grid ?? '[1, 1, 1]'}, block: ${over.block ?? '[32, 1, 1]'}, args: [ { buffer: a } ] }`,
      ].join('\n') + '\n';
    const cases: [string, Parameters<typeof base>[0], string][] = [
      ['a buffer of 1e12 elements', { count: '1000000000000' }, ':4:'],
      ['a buffer of 2^28 f64 elements (2 GiB)', { count: String(2 ** 28), type: 'f64' }, 'buffers[0].count: a buffer holds at most 1 GiB'],
      ['a grid of 1e9 x 1e9 CTAs', { grid: '[1000000000, 1000000000, 1]' }, 'launches[0].grid[1]'],
      ['a CTA of 2048 threads', { block: '[1024, 2, 1]' }, 'launches[0].block: a CTA has at most 1024 threads'],
    ];
    for (const [what, over, expected] of cases) {
      it(`${what}: exit 2 naming the field`, async () => {
        const f = file('sizes.yaml', base(over));
        const r = await runCli(['run', f, '-q']);
        expect(r.code).toBe(2);
        expect(r.err).toContain(expected);
        expect(r.err).not.toContain('    at ');
      });
    }
    it('4097 launches: exit 2 naming launches', async () => {
      const launch = '  - { ptx: k.ptx, entry: fill, grid: [1, 1, 1], block: [32, 1, 1], args: [ { buffer: a } ] }';
      const f = file('many.yaml', ['name: many', 'mode: functional', 'buffers:', '  - { name: a, type: f32, count: 64 }', 'launches:', ...Array(4097).fill(launch)].join('\n') + '\n');
      const r = await runCli(['run', f, '-q']);
      expect(r.code).toBe(2);
      expect(r.err).toContain('launches: Too big');
    });
  });
});

