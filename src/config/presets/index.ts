/**
 * Preset registry: one GPU configuration per machine the papers used (PRESETS.md).
 */
import { InputError } from '../../errors.ts';
import type { GpuConfig } from '../schema.ts';
import { gtx1080ti } from './gtx1080ti.ts';
import { gtx480 } from './gtx480.ts';
import { gtx480Elf } from './gtx480-elf.ts';
import { k20x } from './k20x.ts';
import { m2090 } from './m2090.ts';
import { maxwellCke } from './maxwell-cke.ts';
import { onac32 } from './onac32.ts';

export { gtx1080ti, gtx480, gtx480Elf, k20x, m2090, maxwellCke, onac32 };
export { placeholderPower } from './placeholder-power.ts';

/**
 * Every preset by name (deeply frozen): `gtx480` (GPGPU-Sim SM2_GTX480), `gtx480-elf` (paper 004 Table 1),
 * `m2090` (paper 000 Tables 3.1/4.1/5.1), `k20x` (000 Table 4.1), `onac32` (000 Table 4.3),
 * `maxwell-cke` (001 Table 1), `gtx1080ti` (002 Table 5.1).
 */
export const presets: Readonly<Record<string, GpuConfig>> = deepFreeze({
  gtx480,
  'gtx480-elf': gtx480Elf,
  m2090,
  k20x,
  onac32,
  'maxwell-cke': maxwellCke,
  gtx1080ti,
});

/** Freezes an object graph so a preset cannot be changed by accident (use {@link getPreset} for a copy). */
function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/** Names of the presets, in registry order. */
export function presetNames(): string[] {
  return Object.keys(presets);
}

/**
 * A deep copy of the named preset (callers may modify it).
 * @throws InputError (file `<preset>`, field = the name) for an unknown name, listing the known ones
 */
export function getPreset(name: string): GpuConfig {
  const p = Object.hasOwn(presets, name) ? presets[name] : undefined;
  if (p === undefined) throw new InputError({ file: '<preset>' }, `unknown preset '${name}' (known: ${presetNames().join(', ')})`, name);
  return structuredClone(p);
}
