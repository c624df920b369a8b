// surf_sobel: Sobel edge magnitude |gx| + |gy| of a w x h float image, read from one 2D surface
// object and written to another. Neighbours outside the image are read with
// cudaBoundaryModeClamp (suld .clamp: the nearest pixel of the edge); surface x coordinates are
// byte offsets (4 bytes per float pixel). The store uses the default cudaBoundaryModeTrap.
// Threads outside the image do nothing. Launch: 2D, any block; grid covering w x h.
extern "C" __global__ void surf_sobel(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float p[3][3];
        for (int j = -1; j <= 1; j++)
            for (int i = -1; i <= 1; i++)
                p[j + 1][i + 1] = surf2Dread<float>(in, (x + i) * 4, y + j, cudaBoundaryModeClamp);
        float gx = (p[0][2] + 2.0f * p[1][2] + p[2][2]) - (p[0][0] + 2.0f * p[1][0] + p[2][0]);
        float gy = (p[2][0] + 2.0f * p[2][1] + p[2][2]) - (p[0][0] + 2.0f * p[0][1] + p[0][2]);
        surf2Dwrite(fabsf(gx) + fabsf(gy), out, x * 4, y);
    }
}
