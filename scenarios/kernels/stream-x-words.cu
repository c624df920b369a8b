// stream_x_words: the memory-bound microbenchmark of Awatramani 2017 (papers/000, section 5.3.2).
// A short compute phase forms the thread's addresses, then a memory phase loads `words` words
// and stores them back (to `dst`). Word k of global thread g is element k * T + g, where T is
// the total number of threads of the launch, so each load and store of a warp is coalesced.
// The paper's x is the `words` argument (stream_3_words: words = 3); at most STREAM_MAX_WORDS
// words are streamed (larger values are clamped), and all loads issue before the first store.
#define STREAM_MAX_WORDS 8

extern "C" __global__ void stream_x_words(const unsigned int *src, unsigned int *dst, int words)
{
    unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int total = gridDim.x * blockDim.x;
    unsigned int w[STREAM_MAX_WORDS];
#pragma unroll
    for (int k = 0; k < STREAM_MAX_WORDS; k++) {
        if (k < words) {
            w[k] = src[k * total + g];
        }
    }
#pragma unroll
    for (int k = 0; k < STREAM_MAX_WORDS; k++) {
        if (k < words) {
            dst[k * total + g] = w[k];
        }
    }
}
