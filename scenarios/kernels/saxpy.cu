// saxpy: y = a * x + y over n floats with a grid-stride loop, so any 1D launch size covers n.
extern "C" __global__ void saxpy(unsigned int n, float a, const float *x, float *y)
{
    unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = a * x[i] + y[i];
    }
}
