// lud_diagonal: LU factorisation without pivoting of one 16 x 16 diagonal block of a
// matrixDim x matrixDim row-major matrix, in place (the first step of each round of Rodinia's
// blocked lud). The block whose top-left element is m[offset * matrixDim + offset] is staged
// in shared memory by one CTA of 16 threads (thread t owns row t); for k = 0 .. 14, the rows
// below k divide their column-k element by the pivot (L, unit diagonal implied) and then
// subtract l * (row k) from their columns right of k (U), with a __syncthreads after each
// half. The factors are written back over the block. Launch: grid (1, 1, 1), block
// (16, 1, 1); successive launches may take successive offsets.
#define BS 16

extern "C" __global__ void lud_diagonal(float *m, int matrixDim, int offset)
{
    __shared__ float tile[BS][BS];
    int t = threadIdx.x;
    float *block = m + offset * matrixDim + offset;
    for (int j = 0; j < BS; j++) {
        tile[t][j] = block[t * matrixDim + j];
    }
    __syncthreads();
    for (int k = 0; k < BS - 1; k++) {
        if (t > k) {
            tile[t][k] = tile[t][k] / tile[k][k];
        }
        __syncthreads();
        if (t > k) {
            float l = tile[t][k];
            for (int j = k + 1; j < BS; j++) {
                tile[t][j] -= l * tile[k][j];
            }
        }
        __syncthreads();
    }
    for (int j = 0; j < BS; j++) {
        block[t * matrixDim + j] = tile[t][j];
    }
}
