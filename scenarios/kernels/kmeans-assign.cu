// kmeans_assign: the assignment step of k-means (Rodinia kmeans' find-nearest-centroid kernel).
// points are feature-major (points[d * n + i] is feature d of point i, as Rodinia transposes
// them, so a warp's loads coalesce); centroids are centroid-major (centroids[c * dims + d]) and
// are copied into shared memory by each CTA first (k * dims <= 256). Each point takes the
// centroid with the smallest squared Euclidean distance (the lowest index on a tie); a point
// whose membership changes stores the new one and adds 1 to *changed with a global atomic.
// 1D launch, any CTA size.
#define MAX_CENTROID_FLOATS 256

extern "C" __global__ void kmeans_assign(const float *points, const float *centroids,
                                         int *membership, unsigned int *changed, int n, int k,
                                         int dims)
{
    __shared__ float shCentroids[MAX_CENTROID_FLOATS];
    for (int t = threadIdx.x; t < k * dims; t += blockDim.x) {
        shCentroids[t] = centroids[t];
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    int best = 0;
    float bestDist = 3.402823466e38f;
    for (int c = 0; c < k; c++) {
        float dist = 0.0f;
        for (int d = 0; d < dims; d++) {
            float diff = points[d * n + i] - shCentroids[c * dims + d];
            dist += diff * diff;
        }
        if (dist < bestDist) {
            bestDist = dist;
            best = c;
        }
    }
    if (membership[i] != best) {
        membership[i] = best;
        atomicAdd(changed, 1u);
    }
}
