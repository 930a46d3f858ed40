#pragma once
// The CPU reference rasterizer, templated on the scalar: float behind the Rasterizer interface
// (cpu_rasterizer.cpp), double in the finite-difference tests. It evaluates the same functions
// as the CUDA backend by calling the shared math of kernels/raster_math.h, stage by stage:
//   project  every (camera, Gaussian) pair: ProjectedGaussian + SH colour      [C, N] dense
//   bin      per camera and 16x16 tile, the list of overlapping Gaussians sorted by (depth, index)
//   raster   per pixel, front-to-back compositing; remembers T_final and the contributor count
//   backward per pixel back-to-front replay -> one gradient slot per (tile, list entry),
//            then fixed-order reductions to (camera, Gaussian) and to the parameters.
// Determinism: every parallel job writes its own memory and every sum runs in a fixed order
// (slots in tile order, then cameras in order), so results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cpu/parallel.h"
#include "kernels/raster_math.h"
#include "kernels/rasterizer.h"

namespace splat::kernels::cpu {

// GaussiansView / GaussiansGrad / DensifyStats / RenderOutputs with scalar T (same layouts).
template <class T>
struct GaussianArrays {
  int64_t n = 0;
  const T* means = nullptr;
  const T* quats = nullptr;
  const T* log_scales = nullptr;
  const T* opacity_logits = nullptr;
  const T* sh_dc = nullptr;
  const T* sh_rest = nullptr;
  int sh_rest_coeffs = 0;
};
template <class T>
struct GaussianGradArrays {  // accumulated into; a null pointer skips that parameter
  T* means = nullptr;
  T* quats = nullptr;
  T* log_scales = nullptr;
  T* opacity_logits = nullptr;
  T* sh_dc = nullptr;
  T* sh_rest = nullptr;
};
template <class T>
struct DensifyStatsArrays {  // definitions: raster_math.h, "DensifyStats"
  T* grad2d_norm = nullptr;
  T* grad2d_abs_norm = nullptr;
  int32_t* visible_count = nullptr;
  T* max_radius = nullptr;
};
template <class T>
struct ImageArrays {
  T* rgb = nullptr;    // [C,H,W,3]
  T* alpha = nullptr;  // [C,H,W]
  T* depth = nullptr;  // [C,H,W], optional
};
template <class T>
struct ImageGradArrays {  // null means zero
  const T* rgb = nullptr;
  const T* alpha = nullptr;
  const T* depth = nullptr;
};

template <class T>
class ReferenceRasterizer {
 public:
  explicit ReferenceRasterizer(int threads) : threads_(std::max(1, threads)) {}

  // The Gaussian arrays must stay alive and unchanged until backward (they are not copied:
  // the trainer steps the optimiser only after backward, and the viewer never calls backward).
  void forward(const GaussianArrays<T>& g, std::span<const Camera> cameras, const RasterSettings& settings,
               const ImageArrays<T>& out) {
    validate(g, cameras, settings);
    g_ = g;
    cameras_.assign(cameras.begin(), cameras.end());
    settings_ = settings;
    width_ = cameras_.empty() ? 0 : cameras_[0].width;
    height_ = cameras_.empty() ? 0 : cameras_[0].height;
    tiles_x_ = raster::tiles_along(width_);
    tiles_y_ = raster::tiles_along(height_);
    project();
    bin();
    rasterize(out);
    has_forward_ = true;
  }

  void backward(const ImageGradArrays<T>& dout, const GaussianGradArrays<T>& grad, const DensifyStatsArrays<T>& stats) {
    if (!has_forward_) throw std::logic_error("ReferenceRasterizer::backward called before forward");
    backward_pixels(dout);
    reduce_slots();
    backward_gaussians(grad, stats);
  }

  // Total number of (camera, tile, Gaussian) intersections of the last forward.
  int64_t intersections() const { return static_cast<int64_t>(tile_gaussians_.size()); }
  // Per pixel [C, H, W]: how many entries of its tile's list the last forward went through
  // (the last composited one included); what the backward replay starts from.
  const std::vector<int32_t>& contributors() const { return n_contrib_; }

 private:
  // Gradients of the loss with respect to one (camera, Gaussian)'s projected quantities.
  struct Grad2d {
    Vec2<T> mean2d;
    raster::Sym2<T> conic;
    T opacity{};
    Vec3<T> color;
    T depth{};
    Vec2<T> abs_mean2d;  // per-component sums of |per-pixel dL/dmean2d|
    void add(const Grad2d& o) {
      mean2d = mean2d + o.mean2d;
      conic = {conic.xx + o.conic.xx, conic.xy + o.conic.xy, conic.yy + o.conic.yy};
      opacity += o.opacity;
      color += o.color;
      depth += o.depth;
      abs_mean2d = abs_mean2d + o.abs_mean2d;
    }
  };

  static void validate(const GaussianArrays<T>& g, std::span<const Camera> cameras, const RasterSettings& s) {
    for (const Camera& c : cameras)
      if (c.width != cameras[0].width || c.height != cameras[0].height || c.width <= 0 || c.height <= 0)
        throw std::invalid_argument("rasterizer: all cameras of one call need the same positive width and height");
    if (s.sh_degree < 0 || s.sh_degree > 3)
      throw std::invalid_argument("rasterizer: sh_degree " + std::to_string(s.sh_degree) + " outside 0..3");
    if (sh_coeffs_for_degree(s.sh_degree) - 1 > g.sh_rest_coeffs)
      throw std::invalid_argument("rasterizer: sh_degree " + std::to_string(s.sh_degree) + " needs " +
                                  std::to_string(sh_coeffs_for_degree(s.sh_degree) - 1) +
                                  " SH coefficients beyond DC, the Gaussians store " +
                                  std::to_string(g.sh_rest_coeffs));
  }

  Vec3<T> load3(const T* p, int64_t i) const { return {p[3 * i], p[3 * i + 1], p[3 * i + 2]}; }
  raster::Quat<T> quat(int64_t i) const {
    const T* q = g_.quats + 4 * i;
    return {q[0], q[1], q[2], q[3]};
  }
  const T* rest_of(int64_t i) const { return g_.sh_rest ? g_.sh_rest + i * g_.sh_rest_coeffs * 3 : nullptr; }
  int64_t pixels() const { return int64_t(width_) * height_; }
  int tiles() const { return tiles_x_ * tiles_y_; }

  void project() {
    const int64_t n = g_.n, C = int64_t(cameras_.size());
    proj_.assign(C * n, {});
    colors_.assign(C * n, {});
    parallel_for(n, threads_, [&](int64_t i) {
      for (int64_t c = 0; c < C; ++c) {
        const Camera& cam = cameras_[c];
        const Vec3<T> mean = load3(g_.means, i);
        raster::ProjectedGaussian<T> p = raster::project_gaussian<T>(
            cam, mean, quat(i), load3(g_.log_scales, i), g_.opacity_logits[i], T(settings_.near_plane),
            T(settings_.far_plane), T(settings_.eps2d), settings_.antialiased);
        if (p.visible)
          colors_[c * n + i] = raster::sh_color<T, T>(settings_.sh_degree, mean - raster::camera_centre<T>(cam),
                                                      g_.sh_dc + 3 * i, rest_of(i));
        proj_[c * n + i] = p;
      }
    });
  }

  // CSR lists per (camera, tile): tile_offsets_[c * tiles + t] .. [+1] into tile_gaussians_.
  void bin() {
    const int64_t n = g_.n, C = int64_t(cameras_.size());
    const int nt = tiles();
    tile_offsets_.assign(C * nt + 1, 0);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < n; ++i) {
        const auto& p = proj_[c * n + i];
        if (!p.visible) continue;
        for (int ty = p.tiles.y0; ty < p.tiles.y1; ++ty)
          for (int tx = p.tiles.x0; tx < p.tiles.x1; ++tx) ++tile_offsets_[c * nt + ty * tiles_x_ + tx + 1];
      }
    for (size_t k = 1; k < tile_offsets_.size(); ++k) tile_offsets_[k] += tile_offsets_[k - 1];
    tile_gaussians_.resize(tile_offsets_.back());
    std::vector<int64_t> fill(tile_offsets_.begin(), tile_offsets_.end() - 1);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < n; ++i) {
        const auto& p = proj_[c * n + i];
        if (!p.visible) continue;
        for (int ty = p.tiles.y0; ty < p.tiles.y1; ++ty)
          for (int tx = p.tiles.x0; tx < p.tiles.x1; ++tx)
            tile_gaussians_[fill[c * nt + ty * tiles_x_ + tx]++] = static_cast<int32_t>(i);
      }
    parallel_for(C * nt, threads_, [&](int64_t ct) {
      const int64_t c = ct / nt;
      const raster::ProjectedGaussian<T>* pc = proj_.data() + c * n;
      std::sort(tile_gaussians_.begin() + tile_offsets_[ct], tile_gaussians_.begin() + tile_offsets_[ct + 1],
                [pc](int32_t a, int32_t b) {
                  return pc[a].depth < pc[b].depth || (pc[a].depth == pc[b].depth && a < b);
                });
    });
  }

  // Calls f(c, pixel index within the camera, x, y) for every pixel of tile ct = c * tiles + t.
  template <class F>
  void for_pixels_of_tile(int64_t ct, F&& f) const {
    const int64_t c = ct / tiles();
    const int t = int(ct % tiles());
    const int x0 = (t % tiles_x_) * raster::kTileSize, y0 = (t / tiles_x_) * raster::kTileSize;
    for (int y = y0; y < std::min(height_, y0 + raster::kTileSize); ++y)
      for (int x = x0; x < std::min(width_, x0 + raster::kTileSize); ++x) f(c, int64_t(y) * width_ + x, x, y);
  }

  void rasterize(const ImageArrays<T>& out) {
    const int64_t n = g_.n, C = int64_t(cameras_.size());
    n_contrib_.assign(C * pixels(), 0);
    t_final_.assign(C * pixels(), T(1));
    depth_out_.assign(C * pixels(), T(0));
    parallel_for(C * tiles(), threads_, [&](int64_t ct) {
      const int32_t* list = tile_gaussians_.data() + tile_offsets_[ct];
      const int64_t count = tile_offsets_[ct + 1] - tile_offsets_[ct];
      for_pixels_of_tile(ct, [&](int64_t c, int64_t pix, int x, int y) {
        const Vec2<T> centre{T(x) + T(0.5), T(y) + T(0.5)};
        raster::PixelCompositor<T> comp;
        int32_t contributors = 0;
        for (int64_t k = 0; k < count; ++k) {
          const auto& p = proj_[c * n + list[k]];
          T gauss;
          const T alpha = raster::gaussian_alpha(p.mean2d, p.conic, p.opacity, centre, gauss);
          if (alpha == T(0)) continue;
          if (!comp.add(alpha, colors_[c * n + list[k]], p.depth)) break;
          contributors = int32_t(k + 1);
        }
        const int64_t o = c * pixels() + pix;
        T rgb[3], a, d;
        comp.finish(settings_.background, rgb, a, d);
        n_contrib_[o] = contributors;
        t_final_[o] = comp.transmittance;
        depth_out_[o] = d;
        if (out.rgb)
          for (int ch = 0; ch < 3; ++ch) out.rgb[3 * o + ch] = rgb[ch];
        if (out.alpha) out.alpha[o] = a;
        if (out.depth) out.depth[o] = d;
      });
    });
  }

  // One slot per (camera, tile, list entry): each tile job owns its slots.
  void backward_pixels(const ImageGradArrays<T>& dout) {
    const int64_t n = g_.n;
    slots_.assign(tile_gaussians_.size(), Grad2d{});
    parallel_for(int64_t(cameras_.size()) * tiles(), threads_, [&](int64_t ct) {
      const int32_t* list = tile_gaussians_.data() + tile_offsets_[ct];
      Grad2d* slot = slots_.data() + tile_offsets_[ct];
      for_pixels_of_tile(ct, [&](int64_t c, int64_t pix, int x, int y) {
        const int64_t o = c * pixels() + pix;
        if (n_contrib_[o] == 0) return;
        const Vec2<T> centre{T(x) + T(0.5), T(y) + T(0.5)};
        raster::PixelReplay<T> replay(settings_.background, t_final_[o], depth_out_[o],
                                      dout.rgb ? dout.rgb + 3 * o : nullptr, dout.alpha ? dout.alpha[o] : T(0),
                                      dout.depth ? dout.depth[o] : T(0));
        for (int64_t k = n_contrib_[o] - 1; k >= 0; --k) {
          const int64_t ci = c * n + list[k];
          const auto& p = proj_[ci];
          T gauss;
          const T alpha = raster::gaussian_alpha(p.mean2d, p.conic, p.opacity, centre, gauss);
          if (alpha == T(0)) continue;
          T dalpha, dz;
          Vec3<T> dcolor;
          replay.step(alpha, colors_[ci], p.depth, dalpha, dcolor, dz);
          Grad2d& s = slot[k];
          Vec2<T> dmean{};
          raster::gaussian_alpha_vjp(p.mean2d, p.conic, p.opacity, centre, gauss, dalpha, dmean, s.conic, s.opacity);
          s.mean2d = s.mean2d + dmean;
          s.abs_mean2d = s.abs_mean2d + Vec2<T>{std::abs(dmean.x), std::abs(dmean.y)};
          s.color += dcolor;
          s.depth += dz;
        }
      });
    });
  }

  // Slots -> one Grad2d per (camera, Gaussian), in slot order; cameras are independent.
  void reduce_slots() {
    const int64_t n = g_.n;
    grad2d_.assign(proj_.size(), Grad2d{});
    parallel_for(int64_t(cameras_.size()), threads_, [&](int64_t c) {
      for (int64_t k = tile_offsets_[c * tiles()]; k < tile_offsets_[(c + 1) * tiles()]; ++k)
        grad2d_[c * n + tile_gaussians_[k]].add(slots_[k]);
    });
  }

  void backward_gaussians(const GaussianGradArrays<T>& grad, const DensifyStatsArrays<T>& stats) {
    const int64_t n = g_.n, C = int64_t(cameras_.size());
    const int rest_n = sh_coeffs_for_degree(settings_.sh_degree) - 1;
    parallel_for(n, threads_, [&](int64_t i) {
      const Vec3<T> mean = load3(g_.means, i), log_scale = load3(g_.log_scales, i);
      const raster::Quat<T> q = quat(i);
      Vec3<T> dmean{}, dls{};
      raster::Quat<T> dq{};
      T dlogit = 0, ddc[3] = {0, 0, 0}, drest[3 * (raster::kMaxShCoeffs - 1)] = {};
      for (int64_t c = 0; c < C; ++c) {
        const auto& p = proj_[c * n + i];
        if (!p.visible) continue;
        const Camera& cam = cameras_[c];
        const Grad2d& d = grad2d_[c * n + i];
        raster::project_gaussian_vjp<T>(cam, mean, q, log_scale, g_.opacity_logits[i], T(settings_.eps2d),
                                        settings_.antialiased, d.mean2d, d.conic, d.opacity, d.depth, dmean, dq, dls,
                                        dlogit);
        raster::sh_color_vjp<T, T>(settings_.sh_degree, mean - raster::camera_centre<T>(cam), g_.sh_dc + 3 * i,
                                   rest_of(i), d.color, ddc, drest, dmean);
        if (stats.grad2d_norm) stats.grad2d_norm[i] += raster::ndc_grad_norm(d.mean2d, width_, height_);
        if (stats.grad2d_abs_norm) stats.grad2d_abs_norm[i] += raster::ndc_grad_norm(d.abs_mean2d, width_, height_);
        if (stats.visible_count) stats.visible_count[i] += 1;
        if (stats.max_radius)
          stats.max_radius[i] =
              std::max(stats.max_radius[i], raster::screen_radius_fraction<T>(p.half_x, p.half_y, width_, height_));
      }
      if (grad.means)
        for (int k = 0; k < 3; ++k) grad.means[3 * i + k] += dmean[k];
      if (grad.quats) {
        const T dqa[4] = {dq.w, dq.x, dq.y, dq.z};
        for (int k = 0; k < 4; ++k) grad.quats[4 * i + k] += dqa[k];
      }
      if (grad.log_scales)
        for (int k = 0; k < 3; ++k) grad.log_scales[3 * i + k] += dls[k];
      if (grad.opacity_logits) grad.opacity_logits[i] += dlogit;
      if (grad.sh_dc)
        for (int k = 0; k < 3; ++k) grad.sh_dc[3 * i + k] += ddc[k];
      if (grad.sh_rest)
        for (int k = 0; k < 3 * rest_n; ++k) grad.sh_rest[i * g_.sh_rest_coeffs * 3 + k] += drest[k];
    });
  }

  int threads_;
  bool has_forward_ = false;
  GaussianArrays<T> g_;
  std::vector<Camera> cameras_;
  RasterSettings settings_;
  int width_ = 0, height_ = 0, tiles_x_ = 0, tiles_y_ = 0;
  std::vector<raster::ProjectedGaussian<T>> proj_;  // [C, N]
  std::vector<Vec3<T>> colors_;                     // [C, N]
  std::vector<int64_t> tile_offsets_;               // [C * tiles + 1]
  std::vector<int32_t> tile_gaussians_;             // sorted lists, concatenated
  std::vector<int32_t> n_contrib_;                  // [C, H, W]
  std::vector<T> t_final_, depth_out_;              // [C, H, W]
  std::vector<Grad2d> slots_;                       // per intersection
  std::vector<Grad2d> grad2d_;                      // [C, N]
};

}  // namespace splat::kernels::cpu
