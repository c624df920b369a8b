// histogram_smem: 256-bin histogram of n bytes. Each CTA counts into a private histogram in
// shared memory with shared-memory atomicAdd (grid-stride loop over the input), then adds its
// non-zero bins to the global histogram with global atomicAdd. bins[256] must start at 0.
#define NUM_BINS 256

extern "C" __global__ void histogram_smem(const unsigned char *data, unsigned int *bins,
                                          unsigned int n)
{
    __shared__ unsigned int local[NUM_BINS];
    for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();
    unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        unsigned int count = local[b];
        if (count != 0) {
            atomicAdd(&bins[b], count);
        }
    }
}
