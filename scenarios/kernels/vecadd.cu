// vecadd: c[i] = a[i] + b[i] for i < n, one thread per element.
// Launch: 1D grid of 1D CTAs covering at least n threads; threads past n do nothing.
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
