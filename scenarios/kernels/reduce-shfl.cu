// reduce_shfl: sum of n unsigned ints (modulo 2^32) into *total, with warp shuffles.
// Each thread adds its elements (grid-stride loop), each warp reduces its 32 values with
// __shfl_down_sync, lane 0 of each warp puts the warp's sum in shared memory, the first warp
// reduces those, and thread 0 adds the CTA's sum to *total with one global atomicAdd.
// Launch with blockDim.x a multiple of 32, at most 1024; *total must start at 0.
extern "C" __global__ void reduce_shfl(const unsigned int *in, unsigned int *total, unsigned int n)
{
    __shared__ unsigned int warpSums[32];
    unsigned int t = threadIdx.x;
    unsigned int lane = t & 31u;
    unsigned int warp = t >> 5;
    unsigned int stride = blockDim.x * gridDim.x;
    unsigned int sum = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + t; i < n; i += stride) {
        sum += in[i];
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (lane == 0) {
        warpSums[warp] = sum;
    }
    __syncthreads();
    if (warp == 0) {
        unsigned int warps = blockDim.x >> 5;
        sum = lane < warps ? warpSums[lane] : 0u;
        for (int offset = 16; offset > 0; offset >>= 1) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        }
        if (lane == 0) {
            atomicAdd(total, sum);
        }
    }
}
