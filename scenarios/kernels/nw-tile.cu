// nw_tile: Needleman-Wunsch global alignment scores on an (n+1) x (n+1) matrix, tiled like
// Rodinia's nw: score[i][j] = max(score[i-1][j-1] + sim[i][j], score[i-1][j] - penalty,
// score[i][j-1] - penalty), with score[i][0] = -i*penalty and score[0][j] = -j*penalty.
// A launch with diag < 0 writes those borders (thread i, for every i <= n the launch covers).
// A launch with diag >= 0 processes the 16 x 16 tiles of one anti-diagonal of tiles (one launch
// per diagonal, blockIdx.x along it; 16 threads per CTA): the tile and its borders live in shared memory and
// the tile is swept diagonal by diagonal with __syncthreads() between steps. Indexing a 2D
// shared array with a row that decreases as threadIdx.x grows makes nvcc form a 32-bit shared
// address that is negative for low threads before its immediate offset is added (the Rodinia
// nw pattern `temp - 64*tid` then `[%r+68]`).
#define B 16

extern "C" __global__ void nw_tile(const int *sim, int *score, int n, int penalty, int diag)
{
    if (diag < 0) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i <= n) {
            score[i * (n + 1)] = -i * penalty;
            score[i] = -i * penalty;
        }
        return;
    }
    __shared__ int temp[B + 1][B + 1];
    __shared__ int sref[B][B];
    int tx = threadIdx.x;
    int tiles = n / B;
    int first = diag - (tiles - 1) > 0 ? diag - (tiles - 1) : 0;
    int c = first + blockIdx.x;
    int r = diag - c;
    int w = n + 1;
    int row0 = r * B;
    int col0 = c * B;
    if (tx == 0) {
        temp[0][0] = score[row0 * w + col0];
    }
    temp[0][tx + 1] = score[row0 * w + col0 + 1 + tx];
    temp[tx + 1][0] = score[(row0 + 1 + tx) * w + col0];
    for (int y = 0; y < B; y++) {
        sref[y][tx] = sim[(row0 + 1 + y) * w + col0 + 1 + tx];
    }
    __syncthreads();
    for (int d = 2; d <= 2 * B; d++) {
        int x = tx + 1;
        int y = d - x;
        if (y >= 1 && y <= B) {
            int diagScore = temp[y - 1][x - 1] + sref[y - 1][x - 1];
            int up = temp[y - 1][x] - penalty;
            int left = temp[y][x - 1] - penalty;
            int best = diagScore > up ? diagScore : up;
            temp[y][x] = best > left ? best : left;
        }
        __syncthreads();
    }
    for (int y = 1; y <= B; y++) {
        score[(row0 + y) * w + col0 + 1 + tx] = temp[y][tx + 1];
    }
}
