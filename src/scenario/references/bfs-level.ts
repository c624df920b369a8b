/**
 * Host reference of `scenarios/kernels/bfs-level.cu`: one level of level-synchronous BFS per
 * launch over a CSR graph.
 *
 * For every vertex v < min(numVertices, threads) with `frontier[v] != 0`: `frontier[v] = 0`, and
 * every neighbour u = colIdx[e], rowPtr[v] <= e < rowPtr[v + 1], with `cost[u] < 0` gets
 * `cost[u] = cost[v] + 1`, `next[u] = 1` and `changed[0] = 1`. Because every frontier vertex of
 * a launch has the same cost (checked here), threads that race on one neighbour store the same
 * values, and visiting the frontier in index order gives the GPU's final contents.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/**
 * Arguments `(s32* rowPtr, s32* colIdx, u8* frontier, u8* next, s32* cost, u32* changed,
 * int numVertices)`; 1D launch. Exact.
 *
 * Throws InputError when `frontier` and `next` are the same buffer, when frontier vertices have
 * different or negative costs (the kernel's result would depend on thread timing), or when an
 * edge leads outside `cost`.
 */
export const bfsLevel: KernelReference = (input) =>
  runLaunches('bfs_level', input, (launch) => {
    launch.expectArgCount(7);
    const { threads } = launch.dims1D();
    const numVertices = launch.s32(6);
    const active = Math.max(0, Math.min(numVertices, threads));
    if (launch.bufferName(2) === launch.bufferName(3)) launch.fail('frontier and next must be different buffers', 'args[3]');
    const rowPtr = launch.buffer(0, 's32', active > 0 ? active + 1 : 0);
    const colIdx = launch.buffer(1, 's32');
    const frontier = launch.buffer(2, 'u8', active);
    const next = launch.buffer(3, 'u8');
    const cost = launch.buffer(4, 's32', active);
    const changed = launch.buffer(5, 'u32', 1);
    let levelCost: number | undefined;
    for (let v = 0; v < active; v++) {
      if (frontier[v] === 0) continue;
      const c = cost[v]!;
      if (c < 0 || (levelCost !== undefined && c !== levelCost)) {
        launch.fail(`frontier vertex ${v} has cost ${c}; all frontier vertices need one cost >= 0`, 'args[4]');
      }
      levelCost = c;
    }
    for (let v = 0; v < active; v++) {
      if (frontier[v] === 0) continue;
      frontier[v] = 0;
      const reached = (cost[v]! + 1) | 0;
      const end = rowPtr[v + 1]!;
      for (let e = rowPtr[v]!; e < end; e++) {
        if (e < 0 || e >= colIdx.length) launch.fail(`vertex ${v}: edge ${e} is outside colIdx (${colIdx.length} elements)`, 'args[1]');
        const u = colIdx[e]!;
        if (u < 0 || u >= cost.length || u >= next.length) {
          launch.fail(`vertex ${v}: neighbour ${u} is outside cost/next`, 'args[1]');
        }
        if (cost[u]! < 0) {
          cost[u] = reached;
          next[u] = 1;
          changed[0] = 1;
        }
      }
    }
  });
