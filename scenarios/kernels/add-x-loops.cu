// add_x_loops: the compute-bound microbenchmark of Awatramani 2017 (papers/000, section 5.3.1).
// Each thread reads two elements, scales each of them by `factor` once per loop iteration for
// `loops` iterations (the long compute phase), then stores their sum (the final memory phase).
// The paper's x is the `loops` argument (add_20_loops: loops = 20).
extern "C" __global__ void add_x_loops(const float *a, const float *b, float *c, float factor,
                                       int loops, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    float u = a[i];
    float v = b[i];
    for (int k = 0; k < loops; k++) {
        u = u * factor;
        v = v * factor;
    }
    c[i] = u + v;
}
