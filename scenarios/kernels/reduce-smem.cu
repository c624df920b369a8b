// reduce_smem: sum of n floats, one partial sum per CTA, by a tree in dynamic shared memory.
// Each thread first adds its elements in[i], i = global id + j * (total threads), in increasing
// order (grid-stride loop); the CTA then halves the active threads each step (s = blockDim/2,
// blockDim/4, ..., 1: sdata[t] += sdata[t + s] for t < s) and thread 0 writes out[blockIdx.x].
// Launch with blockDim.x a power of two and dynamicSharedBytes = blockDim.x * 4. A second
// launch with one CTA over the partial sums gives the total.
extern "C" __global__ void reduce_smem(const float *in, float *out, unsigned int n)
{
    extern __shared__ float sdata[];
    unsigned int t = threadIdx.x;
    unsigned int stride = blockDim.x * gridDim.x;
    float sum = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + t; i < n; i += stride) {
        sum += in[i];
    }
    sdata[t] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            sdata[t] += sdata[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = sdata[0];
    }
}
