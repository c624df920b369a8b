/**
 * ALU and memory load as 000 §3.5.4 defines it (C12 of `specs/warp-level.md` §4): per SM and
 * active cycle, the ALU instructions in the execution pipelines and the memory instructions
 * issued and not written back; each active cycle falls in exactly one class of Fig. 3.9 (idle,
 * computation only, memory only, both). Identities that follow from the definitions:
 * - the four classes add up to `active_cycles`;
 * - a cycle with an ALU (memory) instruction in flight adds at least 1 to the ALU (memory) sum;
 * - a memory instruction issued in cycle i and written back in cycle w is in flight in the
 *   cycles i+1 .. w-1 (write-backs are applied before a cycle is counted, issues after): so the
 *   memory sum is at most the AMAT sum (w - i per instruction) minus the instructions completed,
 *   with equality when every such cycle is active (not so for a store still in flight after the
 *   SM's last warp exited);
 * - AMAT overlap counts the memory instructions in flight in cycles with ALU work: at most the
 *   memory sum.
 * The sleep replay accounts them exactly: test/gpu/two-level-baselines.test.ts and
 * test/topology/timing-mode.test.ts compare every statistic with the every-cycle run.
 */
import { describe, expect, it } from 'vitest';
import { runTiming } from './gpu-helpers.ts';

describe('in-flight ALU / memory load and cycle classes (000 §3.5.4, Figs. 3.9, 3.10)', () => {
  it.each(['scenarios/k-vecadd.yaml', 'scenarios/k-add-x-loops.yaml'])('%s: the classes partition the active cycles and the sums agree with AMAT', (file) => {
    const run = runTiming(file, ['sampleInterval=500ns']);
    expect(run.r.passed).toBe(true);
    let sms = 0;
    for (let sm = 0; sm < run.r.config.sm.count; sm++) {
      const v = (n: string) => run.stat(`GPU.SM[${sm}].ISSUE.${n}`);
      const active = v('active_cycles');
      if (active === 0) continue;
      sms++;
      const idle = v('cycles_idle');
      const alu = v('cycles_alu_only');
      const mem = v('cycles_mem_only');
      const both = v('cycles_alu_mem');
      expect(idle + alu + mem + both).toBe(active);
      expect(v('alu_inflight_sum')).toBeGreaterThanOrEqual(alu + both);
      expect(v('mem_inflight_sum')).toBeGreaterThanOrEqual(mem + both);
      expect(v('mem_inflight_sum')).toBeLessThanOrEqual(v('amat_total_cycles') - v('mem_insts_completed'));
      expect(v('amat_overlapped_cycles')).toBeLessThanOrEqual(v('mem_inflight_sum'));
      // Both kernels compute and load: some of each class but idle.
      expect(alu + both).toBeGreaterThan(0);
      expect(mem + both).toBeGreaterThan(0);
    }
    expect(sms).toBeGreaterThan(0);
  });
});
