/**
 * Placeholder power parameters shared by the presets.
 *
 * None of the papers gives calibrated numbers (paper 000 §4.4.4 reports only relative static and
 * dynamic power), so these are order-of-magnitude guesses in the range GPUWattch-style models
 * give for a 40 nm Fermi SM; `placeholder: true` marks them. Calibrate them (e.g. from a
 * GPUWattch/AccelWattch XML) before reporting absolute energy; relative comparisons between
 * runs of the same preset (power-gated vs active SMs) are what they are for.
 */
import type { PowerConfig } from '../schema.ts';

/** Uncalibrated placeholder power parameters (`placeholder: true`). */
export const placeholderPower: PowerConfig = {
  placeholder: true,
  smStaticWatts: 2.5,
  smGatedStaticWatts: 0.1,
  uncoreStaticWatts: 20,
  dramStaticWattsPerPartition: 2,
  energyPj: {
    intOp: 100,
    fpOp: 150,
    dpOp: 400,
    sfuOp: 300,
    tensorOp: 2000,
    regFileAccess: 50,
    l1dAccess: 300,
    sharedMemAccess: 200,
    l2Access: 700,
    icntFlit: 50,
    dramAccess32B: 3000,
  },
};
