// spmv_csr: y = A x for a sparse rows x cols matrix A in CSR form (rowPtr[rows + 1],
// colIdx[nnz], val[nnz]; nnz = rowPtr[rows]), one thread per row (the "scalar" CSR kernel of
// Bell & Garland and Parboil's spmv). Row lengths vary, so the threads of a warp loop a
// different number of times and gather x[] from scattered columns. Each row's products are
// accumulated left to right from 0.0f with fused multiply-adds. 1D launch, any CTA size.
extern "C" __global__ void spmv_csr(const int *rowPtr, const int *colIdx, const float *val,
                                    const float *x, float *y, int rows)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) {
        return;
    }
    float sum = 0.0f;
    int end = rowPtr[row + 1];
    for (int j = rowPtr[row]; j < end; j++) {
        sum += val[j] * x[colIdx[j]];
    }
    y[row] = sum;
}
