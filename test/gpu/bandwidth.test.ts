/**
 * Streaming bandwidth: stream_x_words (papers/000 §5.3.2) over a large array with enough CTAs
 * for all 15 SMs of gtx480 reaches at least half the peak DRAM bandwidth and stays below it.
 *
 * Peak (src/config/schema.ts peakDramBandwidthBytesPerSec): 6 channels x 2 chips x 4 bytes x 4
 * transfers per command cycle x 924 MHz = 177.408 GB/s.
 */
import { describe, expect, it } from 'vitest';
import { peakDramBandwidthBytesPerSec } from '../../src/config/schema.ts';
import { runTiming } from './gpu-helpers.ts';

describe('streaming DRAM bandwidth on gtx480', () => {
  it('stream_4_words over 60 CTAs x 256 threads reaches >= 50% of peak and stays below 100%', () => {
    const ctas = 60; // 4 per SM on 15 SMs (6 fit: 48 warps / 8)
    const words = 4;
    const n = ctas * 256 * words; // 61440 words = 240 KiB read, 240 KiB written
    const run = runTiming('scenarios/k-stream-x-words.yaml', [
      `buffers[0].count=${n}`,
      `buffers[1].count=${n}`,
      `launches[0].grid=[${ctas},1,1]`,
      `launches[0].args[2].s32=${words}`,
      'launches[0].regsPerThread=16',
    ]);
    expect(run.r.passed).toBe(true);
    const peak = peakDramBandwidthBytesPerSec(run.r.config);
    expect(peak).toBeCloseTo(177.408e9, -3);
    // DRAM traffic by hand: every source line is read once (n x 4 B / 128 B = 1920 lines), and
    // every destination line is fetched once too, because the L2 is write-back write-allocate
    // (the model fetches on a write miss; GPGPU-Sim's lazy fetch-on-read would not). The 240 KiB
    // of dirty destination lines stay in the 768 KiB L2: no DRAM writes.
    const lines = (n * 4) / 128;
    expect(run.stat('gpu_dram_reads')).toBe(2 * lines);
    expect(run.stat('gpu_dram_writes')).toBe(0);
    expect(run.stat('gpu_dram_bytes')).toBe(2 * lines * 128);
    // Bandwidth over the whole run, computed here and as the model reports it.
    const seconds = run.stat('gpu_sim_cycle') / (run.r.config.clocks.core * 1e6);
    const achieved = run.stat('gpu_dram_bytes') / seconds;
    expect(run.stat('gpu_dram_bandwidth_gbps') * 1e9).toBeCloseTo(achieved, -8);
    const share = achieved / peak;
    expect(share).toBeGreaterThanOrEqual(0.5);
    expect(share).toBeLessThan(1);
  });
});
