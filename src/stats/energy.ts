/**
 * Energy and power model (000 §4.4.1.2, §4.4.4; `../specs/cta-kernel-level.md` §1.6, §6): static
 * energy of every SM by its power-state intervals (powered or power-gated), uncore and DRAM
 * static energy over the run, and dynamic energy per event class. Pure functions over counters
 * and intervals that an observer of SM power states calls at the end of a run or kernel window;
 * never on the per-cycle path.
 *
 * ```
 * E_static = Σ_SM [powered_cycles × smStaticWatts + gated_cycles × smGatedStaticWatts] / f_core
 *          + T × (uncoreStaticWatts + memPartitions × dramStaticWattsPerPartition)
 * E_dyn    = Σ_events count_e × energyPj_e × 1e-12
 * E        = E_static + E_dyn;  P_avg = E / T;  T = cycles / f_core
 * ```
 * SM power states `active`, `paused`, `draining`, `idle` are powered; `gated` is gated (§6).
 *
 * What the papers give: the structure only (000 §4.4.1.2: "static power increases linearly with
 * Nactive, dynamic power consumption scales proportionally to IPC"; power gating removes the
 * static power of unused cores, §4.4.2), no constants. The one energy constant in the shared
 * data is GPUWattch's `idle_core_power = 1.59` W (`gpuwattch_gtx480.xml`), the power GPGPU-Sim's
 * power model charges an SM without active warps, i.e. what gating removes
 * ({@link GPUWATTCH_FERMI_IDLE_CORE_WATTS}). Every other number is a placeholder: a result
 * names the placeholder parameters it used ({@link EnergyReport.placeholders}), so absolute
 * joules are reported only normalised to a reference run of the same preset (spec §1.6).
 */

/** Event classes with a dynamic energy (the keys of the config's `power.energyPj`). */
export type EnergyEventKind = 'intOp' | 'fpOp' | 'dpOp' | 'sfuOp' | 'tensorOp' | 'regFileAccess' | 'l1dAccess' | 'sharedMemAccess' | 'l2Access' | 'icntFlit' | 'dramAccess32B';

/** Every {@link EnergyEventKind}, in the config's order. */
export const ENERGY_EVENT_KINDS: readonly EnergyEventKind[] = ['intOp', 'fpOp', 'dpOp', 'sfuOp', 'tensorOp', 'regFileAccess', 'l1dAccess', 'sharedMemAccess', 'l2Access', 'icntFlit', 'dramAccess32B'];

/** A parameter of {@link EnergyParams} by name (`energyPj.<kind>` for dynamic energies). */
export type EnergyParamName = 'smStaticWatts' | 'smGatedStaticWatts' | 'uncoreStaticWatts' | 'dramStaticWattsPerPartition' | `energyPj.${EnergyEventKind}`;

/**
 * Power parameters: structurally the config's `power` block (`src/config/schema.ts`
 * `powerSchema`, a `PowerConfig` is accepted as it is) plus optional sources.
 * - `placeholder`: true when the values are not calibrated (the presets' `placeholderPower`);
 *   then every parameter without an entry in `sources` is reported as a placeholder.
 * - `sources`: where a value comes from (paper, data file), per parameter name.
 */
export interface EnergyParams {
  readonly placeholder: boolean;
  /** Static power of one powered SM (W). */
  readonly smStaticWatts: number;
  /** Residual static power of one power-gated SM (W). */
  readonly smGatedStaticWatts: number;
  /** Static power of L2, interconnect and memory controllers (W). */
  readonly uncoreStaticWatts: number;
  /** DRAM background power per memory partition (W). */
  readonly dramStaticWattsPerPartition: number;
  /** Dynamic energy per event (pJ). */
  readonly energyPj: Readonly<Record<EnergyEventKind, number>>;
  readonly sources?: Readonly<Partial<Record<EnergyParamName, string>>>;
}

/**
 * GPUWattch's idle-core power for the Fermi GTX480 (W): `idle_core_power = 1.59` in
 * `shared/data/gpgpusim-configs/deprecated-cfgs/GTX480/gpuwattch_gtx480.xml` (also
 * `tested-cfgs/SM2_GTX480/`; 40 nm, 700 MHz, 380 K, 16 cores). GPGPU-Sim's power wrapper charges
 * it to each SM without active warps, i.e. the static power of a powered-but-idle SM, which is
 * what gating removes. Recommended `smStaticWatts` of the Fermi presets (`gtx480`, `m2090`,
 * `onac32`; spec §1.6). Approximation: warpstate charges it to every powered SM, busy ones
 * included (their dynamic energy comes on top), where GPUWattch gives busy SMs McPAT's modelled
 * leakage instead.
 */
export const GPUWATTCH_FERMI_IDLE_CORE_WATTS = 1.59;

/** Source line of {@link GPUWATTCH_FERMI_IDLE_CORE_WATTS}. */
export const GPUWATTCH_FERMI_IDLE_CORE_SOURCE = 'GPUWattch gpuwattch_gtx480.xml idle_core_power = 1.59 W (GPGPU-Sim power model: power of an SM without active warps); spec §1.6';

/**
 * Residual static power of a power-gated SM (W): *not in paper*, a placeholder of about 6 % of
 * {@link GPUWATTCH_FERMI_IDLE_CORE_WATTS} (spec §1.6 "keep 0.1 W").
 */
export const GATED_SM_STATIC_WATTS_PLACEHOLDER = 0.1;

/**
 * `params` with the Fermi SM static power of GPUWattch and its source; every other value is
 * kept (and stays a placeholder unless `params.sources` names it).
 */
export function withFermiSmStaticPower(params: EnergyParams): EnergyParams {
  return { ...params, smStaticWatts: GPUWATTCH_FERMI_IDLE_CORE_WATTS, sources: { ...params.sources, smStaticWatts: GPUWATTCH_FERMI_IDLE_CORE_SOURCE } };
}

/** Power state of an SM as the SM Work Manager's core status table knows it (spec §6). */
export type SmPowerState = 'active' | 'paused' | 'draining' | 'idle' | 'gated';

/** SM `sm` entered `state` at core cycle `cycle`. Every SM is `active` from cycle 0 until its first change. */
export interface SmPowerChange {
  readonly sm: number;
  /** Core cycle of the change (≥ 0). */
  readonly cycle: number;
  readonly state: SmPowerState;
}

/** Core cycles an SM spent powered and gated in a window. */
export interface SmPowerCycles {
  readonly powered: number;
  readonly gated: number;
}

/**
 * Powered and gated cycles of each SM in the window `[startCycle, endCycle)`, from the power-state
 * changes (any order across SMs; in cycle order per SM). States before the window count from its
 * start; the last state lasts to its end.
 * @param numSms SMs (≥ 1)
 * @returns one entry per SM; `powered + gated = endCycle − startCycle` for each
 * @throws RangeError for a change of an unknown SM, a negative cycle, changes of one SM out of
 *   cycle order, or `endCycle < startCycle`
 */
export function smPowerCycles(numSms: number, changes: readonly SmPowerChange[], startCycle: number, endCycle: number): SmPowerCycles[] {
  if (endCycle < startCycle) throw new RangeError(`energy window ends (${endCycle}) before it starts (${startCycle})`);
  const perSm: SmPowerChange[][] = Array.from({ length: numSms }, () => []);
  for (const c of changes) {
    if (!Number.isInteger(c.sm) || c.sm < 0 || c.sm >= numSms) throw new RangeError(`power change of SM ${c.sm}: the GPU has ${numSms} SMs`);
    if (!(c.cycle >= 0)) throw new RangeError(`power change of SM ${c.sm} at cycle ${c.cycle}: cycles are >= 0`);
    const list = perSm[c.sm]!;
    if (list.length > 0 && list[list.length - 1]!.cycle > c.cycle) throw new RangeError(`power changes of SM ${c.sm} are not in cycle order (${list[list.length - 1]!.cycle} then ${c.cycle})`);
    list.push(c);
  }
  return perSm.map((list) => {
    let powered = 0;
    let gated = 0;
    let state: SmPowerState = 'active';
    let from = startCycle;
    const close = (to: number) => {
      const len = Math.max(0, Math.min(to, endCycle) - from);
      if (state === 'gated') gated += len;
      else powered += len;
    };
    for (const c of list) {
      if (c.cycle <= startCycle) {
        state = c.state;
        continue;
      }
      if (c.cycle >= endCycle) break;
      close(c.cycle);
      from = c.cycle;
      state = c.state;
    }
    close(endCycle);
    return { powered, gated };
  });
}

/** What {@link energyReport} needs: the GPU's shape, the window, the SM power states, the event counts. */
export interface EnergyInput {
  readonly numSms: number;
  /** Memory partitions (each with its DRAM background power). */
  readonly memPartitions: number;
  /** SM core clock (MHz; the config's `clocks.core`). */
  readonly coreClockMhz: number;
  /** Window start (core cycle; default 0) and end (core cycle; `gpu_sim_cycle` for a whole run). */
  readonly startCycle?: number;
  readonly endCycle: number;
  /** SM power-state changes (see {@link SmPowerChange}); none = every SM powered throughout. */
  readonly smPower: readonly SmPowerChange[];
  /** Events of the window per class (counts; absent = 0). */
  readonly events: Readonly<Partial<Record<EnergyEventKind, number>>>;
}

/** Energy of a window (joules), average powers (watts), the cycle totals and the placeholders used. */
export interface EnergyReport {
  /** Window length T (seconds). */
  readonly seconds: number;
  /** Static energy of the SMs (J). */
  readonly smStaticJ: number;
  /** Static energy of uncore and DRAM (J). */
  readonly uncoreStaticJ: number;
  readonly staticJ: number;
  readonly dynamicJ: number;
  readonly totalJ: number;
  /** E / T, E_static / T, E_dyn / T (W); 0 for an empty window. */
  readonly avgPowerW: number;
  readonly staticAvgW: number;
  readonly dynamicAvgW: number;
  /** Σ over SMs of powered and gated cycles (SM-cycles). */
  readonly smPoweredCycles: number;
  readonly smGatedCycles: number;
  /** Dynamic energy per event class (J). */
  readonly eventsJ: Readonly<Record<EnergyEventKind, number>>;
  /** True when any parameter that contributed is a placeholder. */
  readonly placeholder: boolean;
  /** The contributing parameters without a source, in declaration order (empty when calibrated). */
  readonly placeholders: readonly EnergyParamName[];
}

/**
 * The energy of a run or kernel window (spec §1.6 formula, see the module comment).
 * A parameter contributes when its multiplier is non-zero (SM-cycles in its state, the window
 * length, or the event count); a contributing parameter is a placeholder when `params.placeholder`
 * is set and `params.sources` does not name it.
 * @throws RangeError for a non-positive clock or a bad power-change list ({@link smPowerCycles})
 */
export function energyReport(input: EnergyInput, params: EnergyParams): EnergyReport {
  if (!(input.coreClockMhz > 0)) throw new RangeError(`core clock must be > 0 MHz, got ${input.coreClockMhz}`);
  const hz = input.coreClockMhz * 1e6;
  const start = input.startCycle ?? 0;
  const cycles = smPowerCycles(input.numSms, input.smPower, start, input.endCycle);
  const smPoweredCycles = cycles.reduce((s, c) => s + c.powered, 0);
  const smGatedCycles = cycles.reduce((s, c) => s + c.gated, 0);
  const seconds = (input.endCycle - start) / hz;
  const smStaticJ = (smPoweredCycles * params.smStaticWatts + smGatedCycles * params.smGatedStaticWatts) / hz;
  const uncoreStaticJ = seconds * (params.uncoreStaticWatts + input.memPartitions * params.dramStaticWattsPerPartition);
  const eventsJ = {} as Record<EnergyEventKind, number>;
  let dynamicJ = 0;
  for (const k of ENERGY_EVENT_KINDS) {
    eventsJ[k] = (input.events[k] ?? 0) * params.energyPj[k] * 1e-12;
    dynamicJ += eventsJ[k];
  }
  const staticJ = smStaticJ + uncoreStaticJ;
  const totalJ = staticJ + dynamicJ;
  const used: [EnergyParamName, boolean][] = [
    ['smStaticWatts', smPoweredCycles > 0],
    ['smGatedStaticWatts', smGatedCycles > 0],
    ['uncoreStaticWatts', seconds > 0],
    ['dramStaticWattsPerPartition', seconds > 0 && input.memPartitions > 0],
    ...ENERGY_EVENT_KINDS.map((k): [EnergyParamName, boolean] => [`energyPj.${k}`, (input.events[k] ?? 0) > 0]),
  ];
  const placeholders = params.placeholder ? used.filter(([name, u]) => u && params.sources?.[name] === undefined).map(([name]) => name) : [];
  const per = (j: number) => (seconds > 0 ? j / seconds : 0);
  return {
    seconds,
    smStaticJ,
    uncoreStaticJ,
    staticJ,
    dynamicJ,
    totalJ,
    avgPowerW: per(totalJ),
    staticAvgW: per(staticJ),
    dynamicAvgW: per(dynamicJ),
    smPoweredCycles,
    smGatedCycles,
    eventsJ,
    placeholder: placeholders.length > 0,
    placeholders,
  };
}

/**
 * The statistics of spec §1.6 for a report: `energy.static_j`, `energy.dynamic_j`,
 * `energy.total_j`, `power.avg_w`, `power.static_avg_w`, `power.dynamic_avg_w`,
 * `energy.sm_powered_cycles`, `energy.sm_gated_cycles`, `energy.events.<kind>` (J) and
 * `energy.placeholder` (1 when a placeholder contributed), each name prefixed with `prefix`
 * (e.g. `kernel[3].` for a kernel window).
 * @returns name → value, in a fixed order
 */
export function energyStats(r: EnergyReport, prefix = ''): Record<string, number> {
  const out: Record<string, number> = {
    [`${prefix}energy.static_j`]: r.staticJ,
    [`${prefix}energy.dynamic_j`]: r.dynamicJ,
    [`${prefix}energy.total_j`]: r.totalJ,
    [`${prefix}power.avg_w`]: r.avgPowerW,
    [`${prefix}power.static_avg_w`]: r.staticAvgW,
    [`${prefix}power.dynamic_avg_w`]: r.dynamicAvgW,
    [`${prefix}energy.sm_powered_cycles`]: r.smPoweredCycles,
    [`${prefix}energy.sm_gated_cycles`]: r.smGatedCycles,
  };
  for (const k of ENERGY_EVENT_KINDS) out[`${prefix}energy.events.${k}`] = r.eventsJ[k];
  out[`${prefix}energy.placeholder`] = r.placeholder ? 1 : 0;
  return out;
}
