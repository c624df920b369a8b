/**
 * Interrupts lose nothing (issue 9 item 4): SIGINT during a timing run stops it at the current
 * event; the partial statistics (marked partial, with the stop time and the signal), the JSON
 * Lines trace and the Perfetto file are written and parse; the exit code is 130.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SPIN = `.version 8.0
.target sm_75
.address_size 64

.visible .entry spin(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd2, %rd1;
$L_wait:
  ld.volatile.global.u32 %r1, [%rd2];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L_wait;
  ret;
}
`;

describe('interrupts', () => {
  it('SIGINT writes parseable partial statistics, JSONL trace and Perfetto file, and exits 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-int-'));
    writeFileSync(join(dir, 'spin.ptx'), SPIN);
    const scenario = join(dir, 'spin.yaml');
    writeFileSync(scenario, ['name: spin', 'mode: timing', 'gpu: { preset: gtx480, set: [sm.count=1] }', 'buffers:', '  - { name: flag, type: u32, count: 1, init: { generator: zeros } }', 'launches:', '  - { ptx: spin.ptx, entry: spin, grid: [1, 1, 1], block: [32, 1, 1], args: [ { buffer: flag } ] }'].join('\n') + '\n');
    const stats = join(dir, 'stats.json');
    const trace = join(dir, 'trace.jsonl');
    const perfetto = join(dir, 'trace.perfetto.json');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', scenario, '--stats', stats, '--trace', trace, '--perfetto', perfetto, '-q'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const code = await new Promise<number | null>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        // The first progress line comes after 2 s of simulation: the run is in its loop.
        if (stderr.includes('[warpstate] cycle') && !child.killed) child.kill('SIGINT');
      });
      child.on('exit', (c) => resolve(c));
    });
    expect(stderr).toContain('SIGINT: stopping at the current event');
    expect(code).toBe(130);
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    expect(doc.stop).toMatchObject({ reason: 'interrupted', signal: 'SIGINT', partial: true });
    expect(doc.stop.time_ps).toBeGreaterThan(0);
    expect(doc.stats.gpu_tot_warp_insts).toBeGreaterThan(1000);
    const lines = readFileSync(trace, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(100);
    for (const l of lines) JSON.parse(l);
    const pf = JSON.parse(readFileSync(perfetto, 'utf8'));
    expect(Array.isArray(pf.traceEvents) ? pf.traceEvents.length : 0).toBeGreaterThan(100);
  }, 60_000);

  it('SIGTERM stops a network scenario with partial statistics, a closed trace, a Perfetto file and exit 143', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-int-'));
    const stats = join(dir, 'stats.json');
    const trace = join(dir, 'trace.jsonl');
    const perfetto = join(dir, 'trace.perfetto.json');
    // 16 generators x 1e7 requests: minutes of simulation, stopped after the first progress line.
    const args = ['run', 'scenarios/memory-network.yaml', '--set', 'units.GEN.params.requests=10000000', '--stats', stats, '--trace', trace, '--trace-units', 'CTRL,MEM[0]', '--perfetto', perfetto, '-q'];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const code = await new Promise<number | null>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('us simulated') && !child.killed) child.kill('SIGTERM');
      });
      child.on('exit', (c) => resolve(c));
    });
    expect(stderr).toContain('SIGTERM: stopping at the current event');
    expect(code).toBe(143);
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    expect(doc.stop).toMatchObject({ reason: 'interrupted', signal: 'SIGTERM', partial: true });
    // Far fewer than the 1.6e8 requests asked for, but some: the run was stopped in its loop.
    const completed = Object.entries(doc.stats as Record<string, unknown>).filter(([k]) => /^GEN\[\d+\]\.completed$/.test(k)).reduce((a, [, v]) => a + (v as number), 0);
    expect(completed).toBeGreaterThan(0);
    expect(completed).toBeLessThan(160_000_000);
    const lines = readFileSync(trace, 'utf8').trim().split('\n');
    for (const l of lines) JSON.parse(l);
    expect(lines.some((l) => l.includes('"MEM[0]"'))).toBe(true);
    const pf = JSON.parse(readFileSync(perfetto, 'utf8'));
    expect(pf.traceEvents.length).toBeGreaterThan(10);
  }, 60_000);
});
