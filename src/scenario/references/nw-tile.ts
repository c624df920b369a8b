/**
 * Host reference of `scenarios/kernels/nw-tile.cu` (Needleman-Wunsch scores, tiled like Rodinia
 * nw), `nw_tile(const int* sim, int* score, int n, int penalty, int diag)`:
 * - `diag < 0`: `score[i][0] = score[0][i] = -i*penalty` for every `i <= n` the 1D launch covers;
 * - `diag >= 0`: the 16 x 16 tiles
 *   `(r, c)` with `r + c = diag` (`c = max(0, diag - (n/16 - 1)) + blockIdx.x`), each cell
 *   `score[i][j] = max(score[i-1][j-1] + sim[i][j], score[i-1][j] - penalty, score[i][j-1] - penalty)`.
 * Integer arithmetic: exact.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

const B = 16;

/** Arguments as above; 1D launches (block 16 for the tiles). */
export const nwTile: KernelReference = (input) =>
  runLaunches('nw_tile', input, (launch) => {
    launch.expectArgCount(5);
    const n = launch.s32(2);
    const penalty = launch.s32(3);
    const diag = launch.s32(4);
    const w = n + 1;
    if (diag < 0) {
      const { threads } = launch.dims1D();
      const score = launch.buffer(1, 's32', w * w);
      for (let i = 0; i <= Math.min(n, threads - 1); i++) {
        score[i * w] = -i * penalty;
        score[i] = -i * penalty;
      }
      return;
    }
    if (n % B !== 0) launch.fail(`n must be a multiple of ${B}, got ${n}`, 'args[2]');
    const sim = launch.buffer(0, 's32', w * w);
    const score = launch.buffer(1, 's32', w * w);
    const tiles = n / B;
    const first = Math.max(0, diag - (tiles - 1));
    const { gridX } = launch.dims1D();
    for (let k = 0; k < gridX; k++) {
      const c = first + k;
      const r = diag - c;
      for (let y = 1; y <= B; y++) {
        for (let x = 1; x <= B; x++) {
          const i = r * B + y;
          const j = c * B + x;
          const d = score[(i - 1) * w + j - 1]! + sim[i * w + j]!;
          const up = score[(i - 1) * w + j]! - penalty;
          const left = score[i * w + j - 1]! - penalty;
          score[i * w + j] = Math.max(d, up, left);
        }
      }
    }
  });
