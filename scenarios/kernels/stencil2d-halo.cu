// stencil2d_halo: one Jacobi step of a 5-point stencil on a rows x cols row-major grid,
//   out = c0 * t + c1 * ((north + south) + (west + east)),
// with cells outside the grid read as 0 (a fixed zero boundary). Each 16 x 16 CTA first loads
// its tile into an 18 x 18 shared array: every thread its own cell, and the threads on the
// tile's edges the halo cell just outside their edge; after __syncthreads every thread reads
// its four neighbours from shared memory. Threads outside the grid take part in the loads and
// the barrier but store nothing. Launch: block (16, 16, 1), grid (ceil(cols / 16),
// ceil(rows / 16), 1); several launches ping-pong between two buffers.
#define TILE 16

__device__ __forceinline__ float cellOrZero(const float *in, int rows, int cols, int r, int c)
{
    return (r >= 0 && r < rows && c >= 0 && c < cols) ? in[r * cols + c] : 0.0f;
}

extern "C" __global__ void stencil2d_halo(const float *in, float *out, int rows, int cols,
                                          float c0, float c1)
{
    __shared__ float tile[TILE + 2][TILE + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    tile[ty + 1][tx + 1] = cellOrZero(in, rows, cols, r, c);
    if (ty == 0) {
        tile[0][tx + 1] = cellOrZero(in, rows, cols, r - 1, c);
    }
    if (ty == TILE - 1) {
        tile[TILE + 1][tx + 1] = cellOrZero(in, rows, cols, r + 1, c);
    }
    if (tx == 0) {
        tile[ty + 1][0] = cellOrZero(in, rows, cols, r, c - 1);
    }
    if (tx == TILE - 1) {
        tile[ty + 1][TILE + 1] = cellOrZero(in, rows, cols, r, c + 1);
    }
    __syncthreads();
    if (r < rows && c < cols) {
        float t = tile[ty + 1][tx + 1];
        float ns = tile[ty][tx + 1] + tile[ty + 2][tx + 1];
        float we = tile[ty + 1][tx] + tile[ty + 1][tx + 2];
        out[r * cols + c] = c0 * t + c1 * (ns + we);
    }
}
