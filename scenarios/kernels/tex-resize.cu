// tex_resize: bilinear image resize through a 2D texture object. Output pixel (x, y) of an
// outW x outH image samples the source texture at the centre of its footprint,
//   u = (x + 0.5) * scaleX, v = (y + 0.5) * scaleY   (unnormalized source coordinates),
// with tex2D<float>: the texture's filter mode (linear here) and address mode (clamp) decide
// the value, as the CUDA C++ Programming Guide's "Texture Fetching" appendix defines them.
// Threads outside the output store nothing. Launch: 2D, any block; grid covering outW x outH.
extern "C" __global__ void tex_resize(cudaTextureObject_t src, float *dst, int outW, int outH,
                                      float scaleX, float scaleY)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < outW && y < outH) {
        float u = (x + 0.5f) * scaleX;
        float v = (y + 0.5f) * scaleY;
        dst[y * outW + x] = tex2D<float>(src, u, v);
    }
}
