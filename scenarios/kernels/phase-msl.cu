// phase_msl: the type A synthetic kernel of the warp-scheduling verification (papers/000 Fig.
// 3.3(a), section 3.3.3.2; specs/warp-level.md section 7). Each of `iters` iterations is a
// medium, a short and a long phase, each started by a long-latency operation:
//   1. load A[it*T + g]                       (T = total threads, g = global thread id)
//   2. medium phase: PHASE_MEDIUM dependent 32-bit mix steps on a running value that does not
//      depend on A, so it overlaps the load of step 1;
//   3. short phase: A (masked by `mask`, 0 in the scenarios) offsets the address of B; load B;
//   4. long phase: PHASE_LONG dependent mix steps on (B xor the running value), added into an
//      accumulator.
// A mix step is an xor-shift followed by a multiply by an odd constant. nvcc sinks a load to its
// first use in the PTX; the empty asm statements keep each load where the phase starts.
#define PHASE_MEDIUM 12
#define PHASE_LONG 48

extern "C" __global__ void phase_msl(const unsigned int *A, const unsigned int *B, unsigned int *out, int iters,
                                     unsigned int mask)
{
    unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int total = gridDim.x * blockDim.x;
    unsigned int run = g;
    unsigned int acc = 0;
    for (int it = 0; it < iters; it++) {
        unsigned int a = A[it * total + g];
        asm volatile("" ::: "memory");
#pragma unroll
        for (int k = 0; k < PHASE_MEDIUM; k++) {
            run ^= run >> 15;
            run *= 0x2c1b3c6du;
        }
        unsigned int b = B[it * total + g + (a & mask)];
        asm volatile("" ::: "memory");
        unsigned int x = b ^ run;
#pragma unroll
        for (int k = 0; k < PHASE_LONG; k++) {
            x ^= x >> 13;
            x *= 0x297a2d39u;
        }
        acc += x;
    }
    out[g] = acc;
}
