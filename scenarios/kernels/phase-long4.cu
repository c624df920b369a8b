// phase_long4: the type B synthetic kernel of the warp-scheduling verification (papers/000
// section 3.3.3.2, the CFD shape: long phases that each start with several loads;
// specs/warp-level.md section 7). Each of `steps` long phases
//   1. issues four independent f32 loads, p[j*T] for j = 0..3 with p = X + (4s*T + g + off)
//      (T = total threads, g = global thread id: coalesced), where off = (bits of the previous
//      phase's value) & mask (`mask` is 0 in the scenarios), so a phase's loads wait for the
//      phase before;
//   2. runs PHASE_LEN dependent steps t = t * 0.999f + 0.001f from the phase value (nvcc
//      contracts each step to one fma.rn.f32), and only then consumes the four loaded values:
//      v = t + ((x0 + x1) + (x2 + x3)). As in CFD, the loads issued at the start of the long
//      phase complete before it ends, so a warp that GTO keeps selecting never waits for them.
// nvcc sinks a load to its first use in the PTX; the empty asm statement keeps the four loads
// together at the start of the phase.
#define PHASE_LEN 48

extern "C" __global__ void phase_long4(const float *X, float *out, int steps, unsigned int mask)
{
    unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int total = gridDim.x * blockDim.x;
    float v = 0.0f;
    for (int s = 0; s < steps; s++) {
        const float *p = X + (4u * s * total + g + (__float_as_uint(v) & mask));
        float x0 = p[0];
        float x1 = p[total];
        float x2 = p[2u * total];
        float x3 = p[3u * total];
        asm volatile("" ::: "memory");
        float t = v;
#pragma unroll
        for (int k = 0; k < PHASE_LEN; k++) {
            t = t * 0.999f + 0.001f;
        }
        v = t + ((x0 + x1) + (x2 + x3));
    }
    out[g] = v;
}
