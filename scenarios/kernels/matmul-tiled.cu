// matmul_tiled: C = A * B with row-major A (m x k), B (k x n), C (m x n), through 16 x 16
// shared-memory tiles. 2D launch: block (16, 16), grid (ceil(n / 16), ceil(m / 16)); thread
// (tx, ty) of CTA (bx, by) computes C[by * 16 + ty][bx * 16 + tx]. Out-of-range tile elements
// are loaded as 0, so m, n and k need not be multiples of 16. The dot product is accumulated in
// k order, tile by tile.
#define TILE 16

extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int m, int n,
                                        int k)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    int tiles = (k + TILE - 1) / TILE;
    for (int t = 0; t < tiles; t++) {
        int ak = t * TILE + tx;
        int bk = t * TILE + ty;
        As[ty][tx] = (row < m && ak < k) ? A[row * k + ak] : 0.0f;
        Bs[ty][tx] = (bk < k && col < n) ? B[bk * n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < TILE; j++) {
            acc += As[ty][j] * Bs[j][tx];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        C[row * n + col] = acc;
    }
}
