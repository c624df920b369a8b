/**
 * Determinism (DESIGN.md §2): the same timing scenario run twice gives identical statistics JSON
 * and byte-identical JSON Lines traces; a different seed gives different buffer contents and a
 * different trace (so the comparison can fail).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'warpstate-determinism-'));

async function run(tag: string, extra: string[] = []): Promise<{ stats: Buffer; trace: Buffer }> {
  const stats = join(dir, `${tag}.json`);
  const trace = join(dir, `${tag}.jsonl`);
  // stream_x_words touches every memory unit (L1D, interconnect, L2, DRAM) and both schedulers.
  const r = await runCli(['run', 'scenarios/k-stream-x-words.yaml', '--set', 'mode=timing', '--set', 'launches[0].grid=[8,1,1]', '--config-set', 'sm.count=2', '--stats', stats, '--trace', trace, '-q', ...extra]);
  expect(r.code).toBe(0);
  return { stats: readFileSync(stats), trace: readFileSync(trace) };
}

describe('timing runs are deterministic', () => {
  it('same scenario twice: identical stats JSON and identical JSONL trace bytes', async () => {
    const a = await run('a');
    const b = await run('b');
    expect(a.trace.length).toBeGreaterThan(100_000);
    expect(b.stats.equals(a.stats)).toBe(true);
    expect(b.trace.equals(a.trace)).toBe(true);
    const s = JSON.parse(a.stats.toString('utf8'));
    expect(s.stats.gpu_dram_reads).toBeGreaterThan(0);
    expect(s.stats.gpu_l2_accesses).toBeGreaterThan(0);
    // The trace holds memory traffic of every level.
    const text = a.trace.toString('utf8');
    for (const unit of ['GPU.SM[0].L1D', 'GPU.ICNT', 'GPU.L2[0]', 'GPU.DRAM[0]']) expect(text).toContain(`"dst":"${unit}"`);
    // Another seed: other source data, another trace (the byte comparison is not vacuous).
    const c = await run('c', ['--seed', '5']);
    expect(c.trace.equals(a.trace)).toBe(false);
  });
});
