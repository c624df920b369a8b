/**
 * Fetch scheduling policies (`specs/warp-level.md` §4 C9, §2.5 B): which warp's pending fetch
 * request the FETCH stage serves this cycle. Chosen by name from a registry
 * ({@link createFetchPolicy}); a later technique registers its own with
 * {@link registerFetchPolicy}.
 *
 * - `rr` (default): round robin over the warp slots with a request, starting after the slot
 *   served last (GPGPU-Sim `shader_core_ctx::fetch`, which scans warps from the last fetched one).
 * - `warpPriority`: ELF's coordinated fetch (004 §3.3: "use the same priority as the warp
 *   schedulers to prioritize instruction fetch"; the issue stage stamps each request with its warp
 *   scheduler policy's `fetchPriority`, lower first; none counts as 0). With several schedulers the
 *   unified order interleaves the schedulers' orders (004 §3.3: "interleaving the priority orders
 *   from each warp schedulers"), and the scheduler that leads the interleave alternates every cycle
 *   (spec R-E4): the request served is the best of the leading scheduler's warps (warp slot w
 *   belongs to scheduler w mod N), else of the next scheduler's, ties in round-robin order.
 *
 * Policies are pure functions over the request table: no allocation.
 */
import { InputError, type SourceLocation } from '../../errors.ts';

/** What a fetch policy reads of one pending request. */
export interface FetchCandidate {
  /** Lower is served first under `warpPriority`; absent: 0. */
  readonly priority?: number;
}

/**
 * Picks the warp slot to serve among `requests` (indexed by warp slot; null: no request), given
 * the round-robin start slot `rrStart` (the one after the slot served last), the core cycle and
 * the number of warp schedulers. Returns -1 when no slot has a request.
 */
export type FetchPolicy = (requests: readonly (FetchCandidate | null | undefined)[], rrStart: number, cycle: number, schedulers: number) => number;

const registry = new Map<string, FetchPolicy>();

/**
 * Adds a fetch policy.
 * @throws Error when the name is taken
 */
export function registerFetchPolicy(name: string, policy: FetchPolicy): void {
  if (registry.has(name)) throw new Error(`fetch policy '${name}' registered twice`);
  registry.set(name, policy);
}

/** Registered names, in registration order (the default first). */
export function fetchPolicyNames(): string[] {
  return [...registry.keys()];
}

/**
 * The policy named `name`.
 * @throws InputError naming the field and the known names for an unknown name
 */
export function createFetchPolicy(name: string, where: SourceLocation = { file: '<fetch policy>' }): FetchPolicy {
  const p = registry.get(name);
  if (p === undefined) throw new InputError(where, `unknown fetch policy '${name}' (known: ${fetchPolicyNames().join(', ')})`, 'policies.fetchScheduler.kind');
  return p;
}

registerFetchPolicy('rr', (requests, rrStart) => {
  const n = requests.length;
  for (let k = 0; k < n; k++) {
    const w = (rrStart + k) % n;
    if (requests[w] != null) return w;
  }
  return -1;
});

registerFetchPolicy('warpPriority', (requests, rrStart, cycle, schedulers) => {
  const n = requests.length;
  const nSched = Math.max(1, schedulers);
  for (let lead = 0; lead < nSched; lead++) {
    const sched = (cycle + lead) % nSched;
    let best = -1;
    let bestPriority = Infinity;
    for (let k = 0; k < n; k++) {
      const w = (rrStart + k) % n;
      if (w % nSched !== sched) continue;
      const r = requests[w];
      if (r == null) continue;
      const p = r.priority ?? 0;
      if (p < bestPriority) {
        bestPriority = p;
        best = w;
      }
    }
    if (best >= 0) return best;
  }
  return -1;
});
