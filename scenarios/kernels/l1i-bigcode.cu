// l1i_bigcode: a kernel whose loop body is larger than a 2 KiB L1 instruction cache (papers/004
// section 3.4, next-line instruction prefetch; specs/warp-level.md section 2.11 item 5). Each of
// `iters` iterations is BIG_CHUNKS chunks of straight-line code; chunk c loads one word,
// in[(BIG_CHUNKS*it + c)*T + g] (T = total threads, g = global thread id, coalesced), folds it
// into a running value and runs BIG_STEPS dependent 32-bit mix steps (xor-shift, multiply by an
// odd constant). The unrolled body is about 4 x (4 + 3 x 40) = ~500 PTX instructions, ~4 KiB at
// 8 bytes per instruction, so every iteration streams the whole body through the L1I again.
// nvcc moves loads in the PTX; the empty asm statements keep each load at the start of its chunk.
#define BIG_CHUNKS 4
#define BIG_STEPS 40

extern "C" __global__ void l1i_bigcode(const unsigned int *in, unsigned int *out, int iters)
{
    unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int total = gridDim.x * blockDim.x;
    unsigned int x = g;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int c = 0; c < BIG_CHUNKS; c++) {
            x ^= in[(BIG_CHUNKS * it + c) * total + g];
            asm volatile("" ::: "memory");
#pragma unroll
            for (int k = 0; k < BIG_STEPS; k++) {
                x ^= x >> (7 + 2 * c);
                x *= 0x9e3779b1u;
            }
        }
    }
    out[g] = x;
}
