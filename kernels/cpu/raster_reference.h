#pragma once
// The CPU reference rasterizer, templated on the scalar: float behind the Rasterizer interface
// (cpu_rasterizer.cpp), double in the finite-difference tests. It evaluates the same functions
// as the CUDA backend by calling the shared math of kernels/raster_math.h, in the public stages
// of kernels/rasterizer.h:
//   project            every (camera, Gaussian) pair: ProjectedGaussian + SH colour, in (camera, id)
//                      order; packed keeps the visible pairs only
//   rasterize          bin: per camera and 16x16 tile, the list of overlapping pairs sorted by
//                      (depth, global id); raster: per pixel, front-to-back compositing, remembering
//                      T_final and the contributor count
//   rasterize_backward per pixel back-to-front replay -> one gradient slot per (tile, list entry),
//                      then fixed-order sums per pair
//   project_backward   per Gaussian, its pairs in camera order -> parameters and statistics
// Determinism: every parallel job writes its own memory and every sum runs in a fixed order
// (slots in tile order, then cameras in order), so results do not depend on the thread count.
#include <algorithm>
#include <array>
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

template <class T>
class ReferenceRasterizer {
 public:
  explicit ReferenceRasterizer(int threads) : threads_(std::max(1, threads)) {}

  // The one-rank shortcut: project, then rasterize what was projected. The Gaussian arrays must
  // stay alive and unchanged until backward (they are not copied: the trainer steps the optimiser
  // only after backward, and the viewer never calls backward).
  void forward(const BasicGaussiansView<T>& g, std::span<const Camera> cameras, const RasterSettings& settings,
               const BasicRenderOutputs<T>& out) {
    rasterize(project(g, cameras, settings), cameras, 0, settings, out);
  }
  void backward(const BasicRenderOutputGrads<T>& dout, const BasicGaussiansGrad<T>& grad,
                const BasicDensifyStats<T>& stats) {
    if (!has_project_ || !has_raster_) throw std::logic_error("ReferenceRasterizer::backward called before forward");
    check_gradient_targets(grad, proj_settings_.packed, "CPU rasterizer");
    pair_grads_.assign(size_t(kProjectedGradFloats) * proj_.count, T(0));
    const size_t n = size_t(proj_.count);
    T* d = pair_grads_.data();
    rasterize_backward(dout, {d, d + 4 * n, d + 8 * n}, stats.grad2d_abs_norm != nullptr);
    project_backward({d, d + 4 * n, d + 8 * n}, grad, stats);
  }

  // With destinations, every pair is also written to its camera's destination, and the result keeps
  // only the tile counts and screen boxes (as the CUDA backend, which writes nothing else here).
  BasicProjected<T> project(const BasicGaussiansView<T>& g, std::span<const Camera> cameras,
                            const RasterSettings& settings,
                            std::span<const BasicPairDestination<T>> destinations = {}) {
    validate_cameras(cameras);
    validate_degree(g, settings);
    check_destinations(destinations, cameras.size(), settings.packed, "CPU rasterizer");
    g_ = g;
    proj_cameras_.assign(cameras.begin(), cameras.end());
    proj_settings_ = settings;
    project_pairs(settings.packed);
    has_project_ = true;
    if (destinations.empty()) return proj_.view();
    write_destinations(destinations);
    return {proj_.count, nullptr, nullptr, nullptr, nullptr, nullptr, proj_.half.data(), proj_.tiles.data()};
  }

  void project_backward(const BasicConstProjectedGrads<T>& d, const BasicGaussiansGrad<T>& grad,
                        const BasicDensifyStats<T>& stats) {
    if (!has_project_) throw std::logic_error("ReferenceRasterizer::project_backward called before project");
    check_gradient_targets(grad, proj_settings_.packed, "CPU rasterizer");
    backward_gaussians(d, {}, grad, stats);
  }
  void project_backward_by_camera(std::span<const BasicConstProjectedGrads<T>> sources,
                                  const BasicGaussiansGrad<T>& grad, const BasicDensifyStats<T>& stats) {
    if (!has_project_) throw std::logic_error("ReferenceRasterizer::project_backward called before project");
    check_gradient_sources(sources, proj_cameras_.size(), proj_settings_.packed, "CPU rasterizer");
    check_gradient_targets(grad, proj_settings_.packed, "CPU rasterizer");
    backward_gaussians({}, sources, grad, stats);
  }

  void rasterize(const BasicProjected<T>& pairs, std::span<const Camera> cameras, int first_camera,
                 const RasterSettings& settings, const BasicRenderOutputs<T>& out) {
    validate_cameras(cameras);
    validate_pairs(pairs, first_camera, cameras.size());
    pairs_ = pairs;
    first_camera_ = first_camera;
    raster_cameras_.assign(cameras.begin(), cameras.end());
    raster_settings_ = settings;
    layout_images();
    bin();
    composite(out);
    has_raster_ = true;
  }

  // The AbsGS sums only when `abs_sums` (zeros otherwise), as the CUDA backend.
  void rasterize_backward(const BasicRenderOutputGrads<T>& dout, const BasicProjectedGrads<T>& d, bool abs_sums) {
    if (!has_raster_) throw std::logic_error("ReferenceRasterizer::rasterize_backward called before rasterize");
    backward_pixels(dout);
    reduce_slots(d, abs_sums);
  }

  // Total number of (camera, tile, pair) intersections of the last rasterize.
  int64_t intersections() const { return static_cast<int64_t>(tile_entries_.size()); }
  // Per output pixel: how many entries of its tile's list the last rasterize went through (the
  // last composited one included); what the backward replay starts from.
  const std::vector<int32_t>& contributors() const { return n_contrib_; }

 private:
  // Gradients of the loss with respect to one pair's projected quantities.
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

  // Storage of projected pairs in the public layout.
  struct PairStore {
    int64_t count = 0;
    std::vector<int32_t> camera, half, tiles;
    std::vector<int64_t> id;
    std::vector<T> mean2d, conic_opacity, color_depth;
    void resize(int64_t n) {
      count = n;
      camera.assign(n, 0);
      id.assign(n, 0);
      half.assign(2 * n, 0);
      tiles.assign(n, 0);
      mean2d.assign(2 * n, T(0));
      conic_opacity.assign(4 * n, T(0));
      color_depth.assign(4 * n, T(0));
    }
    BasicProjected<T> view() const {
      return {count, camera.data(), id.data(), mean2d.data(), conic_opacity.data(), color_depth.data(), half.data(),
              tiles.data()};
    }
  };

  // One pair of a BasicProjected as the per-pixel math wants it.
  struct Pair {
    Vec2<T> mean2d;
    raster::Sym2<T> conic;
    T opacity, depth;
    Vec3<T> color;
  };
  static Pair pair_at(const BasicProjected<T>& p, int64_t k) {
    const T* co = p.conic_opacity + 4 * k;
    const T* cd = p.color_depth + 4 * k;
    return {{p.mean2d[2 * k], p.mean2d[2 * k + 1]}, {co[0], co[1], co[2]}, co[3], cd[3], {cd[0], cd[1], cd[2]}};
  }

  static void validate_cameras(std::span<const Camera> cameras) {
    for (const Camera& c : cameras)
      if (c.width <= 0 || c.height <= 0)
        throw std::invalid_argument("rasterizer: a camera has an empty image (" + std::to_string(c.width) + "x" +
                                    std::to_string(c.height) + ")");
  }
  static void validate_degree(const BasicGaussiansView<T>& g, const RasterSettings& s) {
    if (!sh_rest_given(g))
      throw std::invalid_argument("rasterizer: GaussiansView must give its SH rest rows as exactly one of sh_rest "
                                  "and sh_rest_bf16");
    if (s.sh_degree < 0 || s.sh_degree > 3)
      throw std::invalid_argument("rasterizer: sh_degree " + std::to_string(s.sh_degree) + " outside 0..3");
    if (sh_coeffs_for_degree(s.sh_degree) - 1 > g.sh_rest_coeffs)
      throw std::invalid_argument("rasterizer: sh_degree " + std::to_string(s.sh_degree) + " needs " +
                                  std::to_string(sh_coeffs_for_degree(s.sh_degree) - 1) +
                                  " SH coefficients beyond DC, the Gaussians store " +
                                  std::to_string(g.sh_rest_coeffs));
  }
  // The order BasicProjected promises is what makes depth ties break by global id here and in
  // the CUDA backend (both sort stably, keeping the input order); where the pairs name their ids,
  // refuse any other order. A pair that covers no tile is never read beyond its tile count (the
  // multi-GPU exchange may leave the rest of it unwritten).
  static void validate_pairs(const BasicProjected<T>& p, int first_camera, size_t cameras) {
    std::vector<int64_t> last_id(cameras, -1);
    for (int64_t k = 0; k < p.count; ++k) {
      if (p.tiles[k] <= 0) continue;
      const int64_t c = int64_t(p.camera[k]) - first_camera;
      if (c < 0 || c >= int64_t(cameras))
        throw std::invalid_argument("rasterizer: projected pair " + std::to_string(k) + " names camera " +
                                    std::to_string(p.camera[k]) + ", outside this call's cameras " +
                                    std::to_string(first_camera) + ".." +
                                    std::to_string(first_camera + int64_t(cameras) - 1));
      if (p.id && p.id[k] <= last_id[c])
        throw std::invalid_argument("rasterizer: projected pairs of camera " + std::to_string(p.camera[k]) +
                                    " are not in ascending global id order at pair " + std::to_string(k));
      if (p.id) last_id[c] = p.id[k];
    }
  }

  Vec3<T> load3(const T* p, int64_t i) const { return {p[3 * i], p[3 * i + 1], p[3 * i + 2]}; }
  raster::Quat<T> quat(int64_t i) const {
    const T* q = g_.quats + 4 * i;
    return {q[0], q[1], q[2], q[3]};
  }
  // Gaussian i's SH rest coefficients as T, decoded from bf16 storage where the view holds that.
  using RestRow = std::array<T, 3 * (raster::kMaxShCoeffs - 1)>;
  RestRow rest_of(int64_t i) const {
    RestRow r{};
    const int64_t first = i * g_.sh_rest_coeffs * 3;
    const int stored = std::min(3 * g_.sh_rest_coeffs, int(r.size()));  // the degree needs at most 45
    for (int k = 0; k < stored; ++k)
      r[k] = g_.sh_rest_bf16 ? T(g_.sh_rest_bf16[first + k]) : g_.sh_rest[first + k];
    return r;
  }

  // Every (camera, Gaussian) into pair c * N + i, then (packed) the visible ones compacted in order.
  void project_pairs(bool packed) {
    const int64_t n = g_.n, C = int64_t(proj_cameras_.size());
    PairStore& all = packed ? scratch_ : proj_;
    all.resize(C * n);
    parallel_for(n, threads_, [&](int64_t i) {
      const Vec3<T> mean = load3(g_.means, i);
      const RestRow rest = rest_of(i);
      for (int64_t c = 0; c < C; ++c) {
        const Camera& cam = proj_cameras_[c];
        const int64_t k = c * n + i;
        all.camera[k] = int32_t(c);
        all.id[k] = g_.first_id + i;
        const raster::ProjectedGaussian<T> p = raster::project_gaussian<T>(
            cam, mean, quat(i), load3(g_.log_scales, i), g_.opacity_logits[i], T(proj_settings_.near_plane),
            T(proj_settings_.far_plane), T(proj_settings_.eps2d), proj_settings_.antialiased);
        if (!p.visible) continue;
        const Vec3<T> rgb = raster::sh_color<T, T>(proj_settings_.sh_degree, mean - raster::camera_centre<T>(cam),
                                                   g_.sh_dc + 3 * i, rest.data());
        all.tiles[k] = p.tile_count;
        all.half[2 * k] = p.half_x;
        all.half[2 * k + 1] = p.half_y;
        all.mean2d[2 * k] = p.mean2d.x;
        all.mean2d[2 * k + 1] = p.mean2d.y;
        T* co = all.conic_opacity.data() + 4 * k;
        co[0] = p.conic.xx, co[1] = p.conic.xy, co[2] = p.conic.yy, co[3] = p.opacity;
        T* cd = all.color_depth.data() + 4 * k;
        cd[0] = rgb.x, cd[1] = rgb.y, cd[2] = rgb.z, cd[3] = p.depth;
      }
    });
    pair_of_.resize(C * n);
    if (!packed) {
      for (int64_t k = 0; k < C * n; ++k) pair_of_[k] = k;
      return;
    }
    int64_t visible = 0;
    for (int64_t k = 0; k < C * n; ++k) pair_of_[k] = all.tiles[k] > 0 ? visible++ : -1;
    proj_.resize(visible);
    for (int64_t k = 0; k < C * n; ++k) {
      const int64_t s = pair_of_[k];
      if (s < 0) continue;
      proj_.camera[s] = all.camera[k];
      proj_.id[s] = all.id[k];
      proj_.tiles[s] = all.tiles[k];
      std::copy_n(all.half.begin() + 2 * k, 2, proj_.half.begin() + 2 * s);
      std::copy_n(all.mean2d.begin() + 2 * k, 2, proj_.mean2d.begin() + 2 * s);
      std::copy_n(all.conic_opacity.begin() + 4 * k, 4, proj_.conic_opacity.begin() + 4 * s);
      std::copy_n(all.color_depth.begin() + 4 * k, 4, proj_.color_depth.begin() + 4 * s);
    }
  }

  // Dense pair c * N + i to row i of destinations[c]: its tile count, and the rest where it covers a tile.
  void write_destinations(std::span<const BasicPairDestination<T>> destinations) {
    const int64_t n = g_.n;
    for (size_t c = 0; c < destinations.size(); ++c) {
      const BasicPairDestination<T>& to = destinations[c];
      parallel_for(n, threads_, [&](int64_t i) {
        const int64_t k = int64_t(c) * n + i;
        to.tiles[i] = proj_.tiles[k];
        if (!proj_.tiles[k]) return;
        to.camera[i] = proj_.camera[k];
        std::copy_n(proj_.mean2d.begin() + 2 * k, 2, to.mean2d + 2 * i);
        std::copy_n(proj_.conic_opacity.begin() + 4 * k, 4, to.conic_opacity + 4 * i);
        std::copy_n(proj_.color_depth.begin() + 4 * k, 4, to.color_depth + 4 * i);
      });
    }
  }

  // Per camera of the rasterize call: its tile grid, the first of its tiles in the CSR lists and
  // the first of its pixels in the outputs.
  void layout_images() {
    const size_t C = raster_cameras_.size();
    tiles_x_.assign(C, 0);
    tiles_y_.assign(C, 0);
    tile_base_.assign(C + 1, 0);
    pixel_base_ = image_offsets(raster_cameras_);
    for (size_t c = 0; c < C; ++c) {
      tiles_x_[c] = raster::tiles_along(raster_cameras_[c].width);
      tiles_y_[c] = raster::tiles_along(raster_cameras_[c].height);
      tile_base_[c + 1] = tile_base_[c] + int64_t(tiles_x_[c]) * tiles_y_[c];
    }
  }

  int local_camera(int64_t k) const { return pairs_.camera[k] - first_camera_; }
  // The tiles the pair's ellipse reaches, row by row (raster::TileRows).
  template <class F>
  void for_tiles_of_pair(int64_t k, F&& f) const {
    if (pairs_.tiles[k] <= 0) return;
    const int c = local_camera(k);
    const T* co = pairs_.conic_opacity + 4 * k;
    const raster::TileRows<T> rows(Vec2<T>{pairs_.mean2d[2 * k], pairs_.mean2d[2 * k + 1]},
                                   raster::Sym2<T>{co[0], co[1], co[2]}, raster::alpha_level_k2(co[3]), tiles_x_[c],
                                   tiles_y_[c]);
    for (int ty = rows.first_row(); ty < rows.end_row(); ++ty) {
      int x0, x1;
      rows.row(ty, x0, x1);
      for (int tx = x0; tx < x1; ++tx) f(tile_base_[c] + int64_t(ty) * tiles_x_[c] + tx);
    }
  }

  // CSR lists per (camera, tile): tile_offsets_[tile] .. [+1] into tile_entries_ (pair indices),
  // each sorted stably by raster::depth_sort_key of the depth as a float: the lists are filled in
  // pair order, which within a camera is ascending global id, so depth ties break by id.
  void bin() {
    tile_offsets_.assign(tile_base_.back() + 1, 0);
    for (int64_t k = 0; k < pairs_.count; ++k) for_tiles_of_pair(k, [&](int64_t t) { ++tile_offsets_[t + 1]; });
    for (size_t t = 1; t < tile_offsets_.size(); ++t) tile_offsets_[t] += tile_offsets_[t - 1];
    tile_entries_.resize(tile_offsets_.back());
    std::vector<int64_t> fill(tile_offsets_.begin(), tile_offsets_.end() - 1);
    for (int64_t k = 0; k < pairs_.count; ++k) for_tiles_of_pair(k, [&](int64_t t) { tile_entries_[fill[t]++] = k; });
    const BasicProjected<T>& p = pairs_;
    parallel_for(tile_base_.back(), threads_, [&](int64_t t) {
      std::stable_sort(tile_entries_.begin() + tile_offsets_[t], tile_entries_.begin() + tile_offsets_[t + 1],
                       [&p](int64_t a, int64_t b) {
                         return raster::depth_sort_key(float(p.color_depth[4 * a + 3])) <
                                raster::depth_sort_key(float(p.color_depth[4 * b + 3]));
                       });
    });
  }

  // Calls f(output pixel index, x, y) for every pixel of tile t (a tile of some camera).
  template <class F>
  void for_pixels_of_tile(int64_t t, F&& f) const {
    const size_t c = size_t(std::upper_bound(tile_base_.begin(), tile_base_.end(), t) - tile_base_.begin()) - 1;
    const int64_t local = t - tile_base_[c];
    const int width = raster_cameras_[c].width, height = raster_cameras_[c].height;
    const int x0 = int(local % tiles_x_[c]) * raster::kTileSize, y0 = int(local / tiles_x_[c]) * raster::kTileSize;
    for (int y = y0; y < std::min(height, y0 + raster::kTileSize); ++y)
      for (int x = x0; x < std::min(width, x0 + raster::kTileSize); ++x)
        f(pixel_base_[c] + int64_t(y) * width + x, x, y);
  }

  void composite(const BasicRenderOutputs<T>& out) {
    const int64_t pixels = pixel_base_.back();
    n_contrib_.assign(pixels, 0);
    t_final_.assign(pixels, T(1));
    depth_out_.assign(pixels, T(0));
    parallel_for(tile_base_.back(), threads_, [&](int64_t t) {
      const int64_t* list = tile_entries_.data() + tile_offsets_[t];
      const int64_t count = tile_offsets_[t + 1] - tile_offsets_[t];
      for_pixels_of_tile(t, [&](int64_t o, int x, int y) {
        const Vec2<T> centre{T(x) + T(0.5), T(y) + T(0.5)};
        raster::PixelCompositor<T> comp;
        int32_t contributors = 0;
        for (int64_t k = 0; k < count; ++k) {
          const Pair p = pair_at(pairs_, list[k]);
          T gauss;
          const T alpha = raster::gaussian_alpha(p.mean2d, p.conic, p.opacity, centre, gauss);
          if (alpha == T(0)) continue;
          if (!comp.add(alpha, p.color, p.depth)) break;
          contributors = int32_t(k + 1);
        }
        T rgb[3], a, d;
        comp.finish(raster_settings_.background, rgb, a, d);
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

  // One slot per (tile, list entry): each tile job owns its slots.
  void backward_pixels(const BasicRenderOutputGrads<T>& dout) {
    slots_.assign(tile_entries_.size(), Grad2d{});
    parallel_for(tile_base_.back(), threads_, [&](int64_t t) {
      const int64_t* list = tile_entries_.data() + tile_offsets_[t];
      Grad2d* slot = slots_.data() + tile_offsets_[t];
      for_pixels_of_tile(t, [&](int64_t o, int x, int y) {
        if (n_contrib_[o] == 0) return;
        const Vec2<T> centre{T(x) + T(0.5), T(y) + T(0.5)};
        raster::PixelReplay<T> replay(raster_settings_.background, t_final_[o], depth_out_[o],
                                      dout.rgb ? dout.rgb + 3 * o : nullptr, dout.alpha ? dout.alpha[o] : T(0),
                                      dout.depth ? dout.depth[o] : T(0));
        for (int64_t k = n_contrib_[o] - 1; k >= 0; --k) {
          const Pair p = pair_at(pairs_, list[k]);
          T gauss;
          const T alpha = raster::gaussian_alpha(p.mean2d, p.conic, p.opacity, centre, gauss);
          if (alpha == T(0)) continue;
          T dalpha, dz;
          Vec3<T> dcolor;
          replay.step(alpha, p.color, p.depth, dalpha, dcolor, dz);
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

  // Slots -> one Grad2d per pair, in slot order. A pair's slots all lie in its camera's tiles,
  // so cameras are independent jobs. A culled pair's rows are not written (as the CUDA backend).
  void reduce_slots(const BasicProjectedGrads<T>& d, bool abs_sums) {
    std::vector<Grad2d> per_pair(size_t(pairs_.count));
    parallel_for(int64_t(raster_cameras_.size()), threads_, [&](int64_t c) {
      for (int64_t e = tile_offsets_[tile_base_[c]]; e < tile_offsets_[tile_base_[c + 1]]; ++e)
        per_pair[tile_entries_[e]].add(slots_[e]);
    });
    parallel_for(pairs_.count, threads_, [&](int64_t k) {
      if (pairs_.tiles[k] <= 0) return;
      const Grad2d& g = per_pair[k];
      const T m[4] = {g.mean2d.x, g.mean2d.y, abs_sums ? g.abs_mean2d.x : T(0), abs_sums ? g.abs_mean2d.y : T(0)};
      const T co[4] = {g.conic.xx, g.conic.xy, g.conic.yy, g.opacity};
      const T cd[4] = {g.color.x, g.color.y, g.color.z, g.depth};
      std::copy_n(m, 4, d.mean2d + 4 * k);
      std::copy_n(co, 4, d.conic_opacity + 4 * k);
      std::copy_n(cd, 4, d.color_depth + 4 * k);
    });
  }

  // Pair k's gradients are row k of `d`, or with `by_camera` (dense), row i of camera c's arrays.
  void backward_gaussians(const BasicConstProjectedGrads<T>& d, std::span<const BasicConstProjectedGrads<T>> by_camera,
                          const BasicGaussiansGrad<T>& grad, const BasicDensifyStats<T>& stats) {
    const int64_t n = g_.n, C = int64_t(proj_cameras_.size());
    const int rest_n = sh_coeffs_for_degree(proj_settings_.sh_degree) - 1;
    parallel_for(n, threads_, [&](int64_t i) {
      const Vec3<T> mean = load3(g_.means, i), log_scale = load3(g_.log_scales, i);
      const raster::Quat<T> q = quat(i);
      Vec3<T> dmean{}, dls{};
      raster::Quat<T> dq{};
      T dlogit = 0, ddc[3] = {0, 0, 0}, drest[3 * (raster::kMaxShCoeffs - 1)] = {};
      const RestRow rest = rest_of(i);
      bool reached = false;  // a pair of the row covers a tile
      for (int64_t c = 0; c < C; ++c) {
        const int64_t k = pair_of_[c * n + i];
        if (k < 0 || proj_.tiles[k] == 0) continue;
        reached = true;
        const Camera& cam = proj_cameras_[c];
        const BasicConstProjectedGrads<T>& from = by_camera.empty() ? d : by_camera[size_t(c)];
        const int64_t at = by_camera.empty() ? k : i;
        const T* m = from.mean2d + 4 * at;
        const T* co = from.conic_opacity + 4 * at;
        const T* cd = from.color_depth + 4 * at;
        raster::project_gaussian_vjp<T>(cam, mean, q, log_scale, g_.opacity_logits[i], T(proj_settings_.eps2d),
                                        proj_settings_.antialiased, Vec2<T>{m[0], m[1]},
                                        raster::Sym2<T>{co[0], co[1], co[2]}, co[3], cd[3], dmean, dq, dls, dlogit);
        raster::sh_color_vjp<T, T>(proj_settings_.sh_degree, mean - raster::camera_centre<T>(cam), g_.sh_dc + 3 * i,
                                   rest.data(), Vec3<T>{cd[0], cd[1], cd[2]}, ddc, drest, dmean);
        if (stats.grad2d_norm) stats.grad2d_norm[i] += raster::ndc_grad_norm(Vec2<T>{m[0], m[1]}, cam.width, cam.height);
        if (stats.grad2d_abs_norm)
          stats.grad2d_abs_norm[i] += raster::ndc_grad_norm(Vec2<T>{m[2], m[3]}, cam.width, cam.height);
        if (stats.visible_count) stats.visible_count[i] += 1;
        if (stats.max_radius)
          stats.max_radius[i] = std::max(stats.max_radius[i], raster::screen_radius_fraction<T>(
                                                                  proj_.half[2 * k], proj_.half[2 * k + 1],
                                                                  cam.width, cam.height));
      }
      // Overwriting stores every row (zeros where no pair reached it), as the CUDA kernels do; given
      // `reached`, only the rows a pair reached.
      if (grad.reached) {
        grad.reached[i] = reached ? 1 : 0;
        if (!reached) return;
      }
      const auto put = [&](T* p, T v) { *p = grad.overwrite ? v : *p + v; };
      if (grad.means)
        for (int k = 0; k < 3; ++k) put(&grad.means[3 * i + k], dmean[k]);
      if (grad.quats) {
        const T dqa[4] = {dq.w, dq.x, dq.y, dq.z};
        for (int k = 0; k < 4; ++k) put(&grad.quats[4 * i + k], dqa[k]);
      }
      if (grad.log_scales)
        for (int k = 0; k < 3; ++k) put(&grad.log_scales[3 * i + k], dls[k]);
      if (grad.opacity_logits) put(&grad.opacity_logits[i], dlogit);
      if (grad.sh_dc)
        for (int k = 0; k < 3; ++k) put(&grad.sh_dc[3 * i + k], ddc[k]);
      // The stored row may hold more coefficients than the active degree has gradients for (zeros).
      const int64_t row = i * g_.sh_rest_coeffs * 3;
      const int written = grad.overwrite ? 3 * g_.sh_rest_coeffs : 3 * rest_n;
      if (grad.sh_rest_bf16)
        for (int k = 0; k < written; ++k) grad.sh_rest_bf16[row + k] = Bf16{bf16_nearest(float(drest[k]))};
      else if (grad.sh_rest)
        for (int k = 0; k < written; ++k) put(&grad.sh_rest[row + k], drest[k]);
    });
  }

  int threads_;

  // The project stage.
  bool has_project_ = false;
  BasicGaussiansView<T> g_;
  std::vector<Camera> proj_cameras_;
  RasterSettings proj_settings_;
  PairStore proj_, scratch_;       // the pairs; scratch_: every pair before packing
  std::vector<int64_t> pair_of_;  // [C, N] -> pair index, -1 when packed away
  std::vector<T> pair_grads_;     // backward's gradients of the pairs (the shortcut)

  // The rasterize stage.
  bool has_raster_ = false;
  BasicProjected<T> pairs_;
  int first_camera_ = 0;
  std::vector<Camera> raster_cameras_;
  RasterSettings raster_settings_;
  std::vector<int> tiles_x_, tiles_y_;
  std::vector<int64_t> tile_base_, pixel_base_;  // [C + 1]
  std::vector<int64_t> tile_offsets_;            // [tiles + 1]
  std::vector<int64_t> tile_entries_;            // sorted lists of pair indices, concatenated
  std::vector<int32_t> n_contrib_;               // per output pixel
  std::vector<T> t_final_, depth_out_;           // per output pixel
  std::vector<Grad2d> slots_;                    // per intersection
};

}  // namespace splat::kernels::cpu
