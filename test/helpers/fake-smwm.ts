/**
 * A fake SM Work Manager for the active-core detectors (ONAC, Seq-Det) in unit tests: it answers
 * the requests a detector emits from a synthetic chip-IPC curve. `ctrl.pause` is acknowledged
 * (`core.paused`), every round of `ctrl.sampleStart` is answered with one `sm.sample` per asked
 * core, each core carrying an equal share of `curve(N)` (N = the cores of the round), and once a
 * count is decided every core without its active bit is reported drained (`core.drained`).
 */
import { createActor, type AnyStateMachine } from 'xstate';
import type { ControllerRequest, SampleStartRequest } from '../../machines/sm-work-manager/controller-events.ts';

/** What a detector run produced. */
export interface DetectorRun {
  /** Cores sampled per round, in order (the first is all cores). */
  readonly rounds: number[];
  /** Every emitted request, in order. */
  readonly emitted: ControllerRequest[];
  readonly snapshot: any;
}

/**
 * Runs `machine` (ONAC or Seq-Det) for a kernel with `ctasPerSm` CTA slots per core on a chip
 * whose IPC with N active cores is `curve(N)` (thread instructions per cycle; each sample window
 * is 1000 cycles).
 * @param ackPauses false: leave pauses unacknowledged (the run stops waiting for them)
 */
export function runDetector(machine: AnyStateMachine, input: Record<string, unknown>, curve: (n: number) => number, opts: { ctasPerSm?: number; ackPauses?: boolean; maxRounds?: number } = {}): DetectorRun {
  const actor = createActor(machine, { input });
  const emitted: ControllerRequest[] = [];
  const pendingSamples: SampleStartRequest[] = [];
  const pendingPauses: number[] = [];
  actor.on('*', (e: ControllerRequest) => {
    emitted.push(e);
    if (e.type === 'ctrl.sampleStart') pendingSamples.push(e);
    if (e.type === 'ctrl.pause') pendingPauses.push(e.sm);
  });
  actor.start();
  actor.send({ type: 'kernel.start', ctasPerSm: opts.ctasPerSm ?? 8 });
  const rounds: number[] = [];
  const active = () => actor.getSnapshot().status === 'active';
  for (let guard = 0; guard < (opts.maxRounds ?? 200) && active(); guard++) {
    if (pendingPauses.length > 0 && opts.ackPauses !== false) {
      for (const sm of pendingPauses.splice(0)) actor.send({ type: 'core.paused', sm });
      continue;
    }
    if (pendingSamples.length > 0) {
      const round = pendingSamples.splice(0);
      const n = round.length;
      rounds.push(n);
      const cycles = 1000;
      for (const r of round) actor.send({ type: 'sm.sample', sm: r.sm, id: r.id, threadInsts: (curve(n) / n) * cycles, cycles });
      continue;
    }
    const cores = (actor.getSnapshot().context as { cores: { active: boolean; gated: boolean }[] }).cores;
    const surplus = cores.map((c, i) => (!c.active && !c.gated ? i : -1)).filter((i) => i >= 0);
    if (surplus.length === 0) break;
    for (const sm of surplus) actor.send({ type: 'core.drained', sm });
  }
  return { rounds, emitted, snapshot: actor.getSnapshot() };
}
