// dpoly: a double-precision element-wise kernel. With p(x) = ((c3 x + c2) x + c1) x + c0
// evaluated by Horner's rule with fused multiply-adds, y[i] = sqrt(|p|) + p / (1 + x^2).
// Grid-stride loop over n elements.
extern "C" __global__ void dpoly(unsigned int n, double c0, double c1, double c2, double c3,
                                 const double *x, double *y)
{
    unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double xi = x[i];
        double p = fma(fma(fma(c3, xi, c2), xi, c1), xi, c0);
        y[i] = sqrt(fabs(p)) + p / (1.0 + xi * xi);
    }
}
