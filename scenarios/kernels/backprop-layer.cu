// backprop_layer: forward step of one fully connected layer (Rodinia backprop's
// bpnn_layerforward, with the sum and the squashing function on the GPU). CTA j computes
// output unit j: each thread accumulates weights[j * in + i] * input[i] over
// i = threadIdx.x, + blockDim.x, ... (fused multiply-adds, in increasing i), the CTA adds
// the per-thread sums by a tree in shared memory (blockDim.x a power of two, <= 256), and
// thread 0 stores output[j] = sigmoid(sum + bias[j]) with the fast approximations a real
// kernel uses: e^-x as ex2.approx (__expf), and the reciprocal as rcp.approx.ftz.
// Launch: grid (out, 1, 1), block (power of two <= 256, 1, 1).
#define MAX_THREADS 256

extern "C" __global__ void backprop_layer(const float *input, const float *weights,
                                          const float *bias, float *output, int in)
{
    __shared__ float partial[MAX_THREADS];
    unsigned int t = threadIdx.x;
    int j = blockIdx.x;
    float sum = 0.0f;
    for (int i = t; i < in; i += blockDim.x) {
        sum += weights[j * in + i] * input[i];
    }
    partial[t] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            partial[t] += partial[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        float net = partial[0] + bias[j];
        float denom = 1.0f + __expf(-net);
        float squashed;
        asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(squashed) : "f"(denom));
        output[j] = squashed;
    }
}
