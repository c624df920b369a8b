/**
 * `gtx480-elf`: the GTX480-like machine of paper 004 (ELF), Table 1. It is the `gtx480` preset
 * (GPGPU-Sim SM2_GTX480) with the values where Table 1 differs, each marked `T1`:
 * - L1I 8 MSHRs (SM2_GTX480: 2), L1D 32 MSHRs (64);
 * - L2 768 KB, 16-way, 128 B lines, 32 MSHRs per L2 partition: 768 KiB over the 12 L2 slices
 *   (6 partitions x 2 sub-partitions) is 64 KiB each, i.e. 32 sets x 16 ways x 128 B
 *   (SM2_GTX480: 64 sets x 8 ways, 256 MSHRs).
 * Table 1's 1400 MHz SM clock appears as GPGPU-Sim's halved 700 MHz, as in SM2_GTX480 (paper 004
 * ran GPGPU-Sim 3.2.2's GTX480 configuration). ELF's own parameters (32 program-point slots,
 * 8-bit scores, prefetch gating at 16 MSHRs, 32-entry NewCAR queue) belong to the ELF policy,
 * not to the machine.
 */
import type { GpuConfig } from '../schema.ts';
import { gtx480 } from './gtx480.ts';

/** GTX480-like machine of paper 004 Table 1. */
export const gtx480Elf: GpuConfig = {
  ...structuredClone(gtx480),
  name: 'gtx480-elf',
  description: 'GTX480-like Fermi GPU of paper 004 (ELF) Table 1',
  sources: ['papers/004 Table 1', 'data/gpgpusim-configs/tested-cfgs/SM2_GTX480/gpgpusim.config (everything Table 1 leaves out)'],
  l1i: { ...gtx480.l1i, mshrEntries: 8 }, // T1: 8 MSHRs per L1I
  l1d: { ...gtx480.l1d, mshrEntries: 32 }, // T1: 32 MSHRs per L1D
  l2: { ...gtx480.l2, sets: 32, ways: 16, mshrEntries: 32 }, // T1: 768 kB / 12 slices, 16-way, 32 MSHRs
};
