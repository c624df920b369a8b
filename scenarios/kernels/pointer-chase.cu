// pointer_chase: a dependent-load latency probe. Thread 0 of CTA 0 follows j = next[j] for
// `steps` steps from j = start, then stores the last index in *lastIndex and the 64-bit sum of
// the indices it visited (start excluded) in *indexSum. Every other thread exits at once.
extern "C" __global__ void pointer_chase(const unsigned int *next, unsigned int start,
                                         unsigned int steps, unsigned int *lastIndex,
                                         unsigned long long *indexSum)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    unsigned int j = start;
    unsigned long long sum = 0;
    for (unsigned int s = 0; s < steps; s++) {
        j = next[j];
        sum += j;
    }
    *lastIndex = j;
    *indexSum = sum;
}
