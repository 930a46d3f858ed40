#include <GL/gl.h>  // cuda_gl_interop.h needs GL types; glad is not used in this file
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include "kernels/cuda_util.h"
#include "kernels/host_waits.h"
#include "ui/cuda_gl_interop.h"

namespace splat::ui {
namespace {
using kernels::cuda::check;

__global__ void colorize_to_surface(const float* rgb, const float* alpha, const float* depth, int width,
                                    int height, ColorizeParams params, cudaSurfaceObject_t surface) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const long long i = static_cast<long long>(y) * width + x;
  uint8_t px[4];
  colorize_pixel(rgb + 3 * i, alpha[i], depth ? depth[i] : 0.f, params, px);
  // Row y of the image is texture row y: the presenter flips, exactly as for the CPU upload.
  surf2Dwrite(make_uchar4(px[0], px[1], px[2], px[3]), surface, x * 4, y);
}
}  // namespace

bool current_gl_on_cuda_device(int ordinal) {
  unsigned count = 0;
  int devices[16];
  if (cudaGLGetDevices(&count, devices, 16, cudaGLDeviceListAll) != cudaSuccess) {
    cudaGetLastError();  // not a failure of this thread's CUDA work: only the answer "no"
    return false;
  }
  for (unsigned i = 0; i < count; ++i)
    if (devices[i] == ordinal) return true;
  return false;
}

CudaGlTexture::CudaGlTexture(unsigned gl_texture) {
  cudaGraphicsResource_t r = nullptr;
  check(cudaGraphicsGLRegisterImage(&r, gl_texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore),
        "registering the viewport texture with CUDA");
  resource_ = r;
}

CudaGlTexture::~CudaGlTexture() {
  if (resource_) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_));
}

void CudaGlTexture::write(const float* rgb, const float* alpha, const float* depth, int width, int height,
                          const ColorizeParams& params, void* cuda_stream) {
  auto stream = static_cast<cudaStream_t>(cuda_stream);
  auto r = static_cast<cudaGraphicsResource_t>(resource_);
  check(cudaGraphicsMapResources(1, &r, stream), "mapping the viewport texture");
  cudaArray_t array = nullptr;
  cudaSurfaceObject_t surface = 0;
  try {
    check(cudaGraphicsSubResourceGetMappedArray(&array, r, 0, 0), "getting the viewport texture's array");
    cudaResourceDesc desc{};
    desc.resType = cudaResourceTypeArray;
    desc.res.array.array = array;
    check(cudaCreateSurfaceObject(&surface, &desc), "creating a surface on the viewport texture");
    const dim3 block(16, 16);
    const dim3 grid((width + 15) / 16, (height + 15) / 16);
    colorize_to_surface<<<grid, block, 0, stream>>>(rgb, alpha, depth, width, height, params, surface);
    check(cudaGetLastError(), "colorize_to_surface");
  } catch (...) {
    if (surface) cudaDestroySurfaceObject(surface);
    cudaGraphicsUnmapResources(1, &r, stream);
    throw;
  }
  // The surface must outlive the kernel that writes through it.
  kernels::note_host_wait("colourising the viewport");
  check(cudaStreamSynchronize(stream), "colourising the viewport");
  check(cudaDestroySurfaceObject(surface), "destroying the viewport surface");
  check(cudaGraphicsUnmapResources(1, &r, stream), "unmapping the viewport texture");
}

}  // namespace splat::ui
