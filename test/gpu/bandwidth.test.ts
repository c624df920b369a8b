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
  it('stream_8_words over 60 CTAs x 256 threads reaches >= 50% of peak and stays below 100%', () => {
    // 8 words per thread (not 4): the run must be long against its start, where every SM waits
    // for its first instruction lines from DRAM (hundreds of cycles) with no data traffic.
    const ctas = 60; // 4 per SM on 15 SMs (6 fit: 48 warps / 8)
    const words = 8;
    const n = ctas * 256 * words; // 122880 words = 480 KiB read, 480 KiB written
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
    // DRAM traffic by hand: every source line is read once (n x 4 B / 128 B = 3840 lines), and
    // every destination line is fetched once too, because the L2 is write-back write-allocate
    // (the model fetches on a write miss; GPGPU-Sim's lazy fetch-on-read would not). The 480 KiB
    // of dirty destination lines stay in the 768 KiB L2: no DRAM writes.
    // The kernel's code is read once too: stream_x_words has 102 instructions at 16 bytes each
    // from the program-memory base, ceil(102 x 16 / 128) = 13 lines (L1I misses go through the
    // L2 to DRAM, as in GPGPU-Sim; later SMs hit in the L2).
    const lines = (n * 4) / 128;
    const codeLines = Math.ceil((102 * 16) / 128);
    expect(run.stat('gpu_dram_reads')).toBe(2 * lines + codeLines);
    expect(run.stat('gpu_dram_writes')).toBe(0);
    expect(run.stat('gpu_dram_bytes')).toBe((2 * lines + codeLines) * 128);
    // Bandwidth over the whole run, computed here and as the model reports it.
    const seconds = run.stat('gpu_sim_cycle') / (run.r.config.clocks.core * 1e6);
    const achieved = run.stat('gpu_dram_bytes') / seconds;
    expect(run.stat('gpu_dram_bandwidth_gbps') * 1e9).toBeCloseTo(achieved, -8);
    const share = achieved / peak;
    expect(share).toBeGreaterThanOrEqual(0.5);
    expect(share).toBeLessThan(1);
  });
});
