// transpose_smem: out (cols x rows) = transpose of in (rows x cols), both row-major, through a
// 16 x 17 shared-memory tile (one column of padding so the column-wise reads of the tile fall in
// different banks). 2D launch: block (16, 16), grid (ceil(cols / 16), ceil(rows / 16)).
#define TILE 16

extern "C" __global__ void transpose_smem(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) {
        tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    }
    __syncthreads();
    // The CTA now writes the transposed tile: its rows are the input tile's columns.
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols) {
        out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
    }
}
