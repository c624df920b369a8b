// histogram_global: histogram of n words into numBins bins (bin = data[i] % numBins) with one
// global atomicAdd per element and no shared-memory privatisation, so with few bins every
// warp's atomics collide on the same addresses (the contended baseline that histogram_smem
// avoids). Grid-stride loop; bins[] must start at 0 (or the counts add to what is there).
// 1D launch, any CTA size.
extern "C" __global__ void histogram_global(const unsigned int *data, unsigned int *bins,
                                            unsigned int n, unsigned int numBins)
{
    unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&bins[data[i] % numBins], 1u);
    }
}
