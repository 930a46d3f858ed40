#pragma once
// Gaussians as the compressed PLY of the PlayCanvas/SuperSplat web viewers ("*.compressed.ply"):
// about 16 bytes a Gaussian plus one byte per SH rest value, against 248 in the 3DGS PLY (degree 3).
// Binary little-endian, three elements:
//
//   element chunk ceil(n/256)   float min_x min_y min_z max_x max_y max_z
//                                     min_scale_x .. _z max_scale_x .. _z   (log scales)
//                                     min_r min_g min_b max_r max_g max_b   (colours; optional when read)
//   element vertex n            uint packed_position packed_rotation packed_scale packed_color
//   element sh n                uchar f_rest_0 .. f_rest_(3(K-1)-1)          (absent for SH degree 0)
//
// Vertex i belongs to chunk i / 256; a packed value v is a fraction of its chunk's [min, max]: the
// stored integer q of b bits is round(fraction * (2^b - 1)), read back as min + (max - min) q / (2^b - 1).
//   packed_position, packed_scale  x: bits 21-31 (11), y: bits 11-20 (10), z: bits 0-10 (11)
//   packed_color                   r: 24-31, g: 16-23, b: 8-15 (8 each; colour = 0.5 + C0 f_dc),
//                                  opacity: bits 0-7, sigmoid(logit) * 255 (not chunk-relative)
//   packed_rotation                the unit quaternion (rot_0..rot_3 of the 3DGS PLY, here w x y z)
//                                  signed so that its largest-magnitude component is positive, whose
//                                  index goes in bits 30-31; the other three, in index order, in bits
//                                  20-29, 10-19, 0-9, each as round((c / sqrt 2 + 0.5) * 1023) (|c| <= 1/sqrt 2);
//                                  the largest is sqrt(1 - the others' squares) when read.
//   f_rest_j                       the 3DGS PLY's f_rest_j (channel-major) as trunc((v / 8 + 0.5) * 256)
//                                  clamped to 0..255, read as 8 ((q + 0.5) / 256 - 0.5), 0 and 255 as -4 and 4.
//
// The writer stores the Gaussians along a Morton curve of their means (compressed_ply_order), so that a
// chunk is a small region of space and its ranges, hence its quantisation steps, are small; log scales are
// clamped to [-20, 20] first, as the viewers' own writer does.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/model/gaussian_model.h"

namespace splat {

inline constexpr int kCompressedChunkSize = 256;

// The order the writer stores a model's rows in: file row k is model row order[k].
std::vector<int64_t> compressed_ply_order(const GaussianModel& model);

// Throws PlyError (core/model/ply_io.h) naming the file when it cannot be written, or when a mean,
// colour or scale is NaN or a mean or colour infinite (no chunk range can hold it).
void write_compressed_ply(const std::filesystem::path& file, const GaussianModel& model);

// Reads the layout above, with or without the chunk colours, in file order. Anything else (another
// element or property, a wrong type, counts that disagree, data longer or shorter than the header
// says) is a PlyError naming the file and what is wrong. Opacities of 0 and 255 read as the middle
// of their quantisation step, so that every logit is finite.
GaussianModel read_compressed_ply(const std::filesystem::path& file);

}  // namespace splat
