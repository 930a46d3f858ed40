#pragma once
// Per-image colour compensation over a run of images (kernels/color_affine_math.h): each image of
// the run is mapped by the parameters of the training view it shows.
#include <cstdint>
#include <span>

#include "kernels/color_affine_math.h"
#include "kernels/device_context.h"

namespace splat::kernels {

// The most images one call maps (their views travel with the launch).
constexpr int kColorAffineMostImages = 64;

// out[c] = map of views[c] applied to rgb[c], for the C = views.size() images of `pixels` pixels each
// ([C, pixels, 3] interleaved). params: [V, 12] for every view. On CUDA enqueued, not waited for.
void color_affine_forward(const ComputeContext& where, const float* params, std::span<const int> views,
                          const float* rgb, float* out, int64_t pixels);

// From the gradient of the mapped images: grad_rgb (written) and each view's parameter gradient
// (accumulated into grad_params [V, 12]).
void color_affine_backward(const ComputeContext& where, const float* params, std::span<const int> views,
                           const float* rgb, const float* grad_out, float* grad_rgb, float* grad_params, int64_t pixels);

// Moves the maps of `views` (count of them, device memory) together so that their mean is the
// identity. Which exposure the scene should take is not in the photos: every map darker and the scene
// brighter fit them as well, and the test views, rendered without a map, would show that drift. Held
// at their mean, the scene takes the photos' mean exposure.
void color_affine_centre(const ComputeContext& where, float* params, const int32_t* views, int count);

// The CPU references (the entry points call them for Device::CPU).
void color_affine_forward_reference(const float* params, std::span<const int> views, const float* rgb, float* out,
                                    int64_t pixels);
void color_affine_backward_reference(const float* params, std::span<const int> views, const float* rgb,
                                     const float* grad_out, float* grad_rgb, float* grad_params, int64_t pixels);

void color_affine_centre_reference(float* params, const int32_t* views, int count);

// Throws std::invalid_argument for more than kColorAffineMostImages views or a negative one.
void check_color_affine(std::span<const int> views);

}  // namespace splat::kernels
