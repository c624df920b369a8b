// stencil_hotspot: one explicit time step of a hotspot-style thermal model on a rows x cols grid
// of cells (row-major). Each cell's new temperature is its old one plus
//   stepOverCap * (power + (T_south + T_north - 2 T) * ry1 + (T_east + T_west - 2 T) * rx1
//                  + (ambient - T) * rz1)
// where a neighbour outside the grid is replaced by the cell itself (insulated border).
// 2D launch: block (16, 16), grid (ceil(cols / 16), ceil(rows / 16)); one step per launch, so
// several launches ping-pong between two temperature buffers.
extern "C" __global__ void stencil_hotspot(const float *power, const float *tempIn, float *tempOut,
                                           int rows, int cols, float stepOverCap, float rx1,
                                           float ry1, float rz1, float ambient)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) {
        return;
    }
    int idx = r * cols + c;
    float t = tempIn[idx];
    float north = r > 0 ? tempIn[idx - cols] : t;
    float south = r < rows - 1 ? tempIn[idx + cols] : t;
    float west = c > 0 ? tempIn[idx - 1] : t;
    float east = c < cols - 1 ? tempIn[idx + 1] : t;
    float delta = stepOverCap * (power[idx] + (south + north - 2.0f * t) * ry1 +
                                 (east + west - 2.0f * t) * rx1 + (ambient - t) * rz1);
    tempOut[idx] = t + delta;
}
