// bfs_level: one level of a level-synchronous breadth-first search over a CSR graph
// (rowPtr[numVertices + 1], colIdx[rowPtr[numVertices]]). One thread per vertex; a thread
// whose vertex is in the frontier clears its frontier flag and visits its neighbours: every
// neighbour not yet reached (cost < 0) gets cost = cost[v] + 1, its flag in `next` set, and
// *changed = 1. All frontier vertices of a level have the same cost, so threads that race on a
// neighbour write the same values. Successive launches swap `frontier` and `next`.
extern "C" __global__ void bfs_level(const int *rowPtr, const int *colIdx, unsigned char *frontier,
                                     unsigned char *next, int *cost, unsigned int *changed,
                                     int numVertices)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= numVertices || frontier[v] == 0) {
        return;
    }
    frontier[v] = 0;
    int reached = cost[v] + 1;
    int end = rowPtr[v + 1];
    for (int e = rowPtr[v]; e < end; e++) {
        int u = colIdx[e];
        if (cost[u] < 0) {
            cost[u] = reached;
            next[u] = 1;
            *changed = 1u;
        }
    }
}
