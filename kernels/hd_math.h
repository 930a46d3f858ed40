#pragma once
// Small fixed-size vector/matrix types templated on the scalar, shared by host code
// (double for finite-difference tests, scene geometry) and CUDA kernels (float).
#include <cmath>

#include "kernels/hd.h"

namespace splat {

template <class T>
struct Vec2 {
  T x{}, y{};
};
template <class T>
struct Vec3 {
  T x{}, y{}, z{};
  SPLAT_HD T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  SPLAT_HD const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};
template <class T>
struct Vec4 {
  T x{}, y{}, z{}, w{};
};
// Row-major 3x3: m[r][c].
template <class T>
struct Mat3 {
  T m[3][3]{};
  static SPLAT_HD Mat3 identity() {
    Mat3 r;
    r.m[0][0] = r.m[1][1] = r.m[2][2] = T(1);
    return r;
  }
};

using Vec2f = Vec2<float>;
using Vec3f = Vec3<float>;
using Vec4f = Vec4<float>;
using Mat3f = Mat3<float>;
using Vec3d = Vec3<double>;
using Mat3d = Mat3<double>;

template <class T> SPLAT_HD Vec2<T> operator+(Vec2<T> a, Vec2<T> b) { return {a.x + b.x, a.y + b.y}; }
template <class T> SPLAT_HD Vec2<T> operator-(Vec2<T> a, Vec2<T> b) { return {a.x - b.x, a.y - b.y}; }
template <class T> SPLAT_HD Vec2<T> operator*(T s, Vec2<T> a) { return {s * a.x, s * a.y}; }
template <class T> SPLAT_HD Vec3<T> operator+(Vec3<T> a, Vec3<T> b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> SPLAT_HD Vec3<T> operator-(Vec3<T> a, Vec3<T> b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> SPLAT_HD Vec3<T> operator-(Vec3<T> a) { return {-a.x, -a.y, -a.z}; }
template <class T> SPLAT_HD Vec3<T> operator*(T s, Vec3<T> a) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> SPLAT_HD Vec3<T> operator*(Vec3<T> a, T s) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> SPLAT_HD Vec3<T> operator/(Vec3<T> a, T s) { return {a.x / s, a.y / s, a.z / s}; }
template <class T> SPLAT_HD Vec3<T>& operator+=(Vec3<T>& a, Vec3<T> b) { a = a + b; return a; }
template <class T> SPLAT_HD T dot(Vec3<T> a, Vec3<T> b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> SPLAT_HD Vec3<T> cross(Vec3<T> a, Vec3<T> b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> SPLAT_HD T norm(Vec3<T> a) { return std::sqrt(dot(a, a)); }

template <class T> SPLAT_HD Vec3<T> operator*(const Mat3<T>& A, Vec3<T> v) {
  return {A.m[0][0] * v.x + A.m[0][1] * v.y + A.m[0][2] * v.z,
          A.m[1][0] * v.x + A.m[1][1] * v.y + A.m[1][2] * v.z,
          A.m[2][0] * v.x + A.m[2][1] * v.y + A.m[2][2] * v.z};
}
template <class T> SPLAT_HD Mat3<T> operator*(const Mat3<T>& A, const Mat3<T>& B) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = A.m[i][0] * B.m[0][j] + A.m[i][1] * B.m[1][j] + A.m[i][2] * B.m[2][j];
  return r;
}
template <class T> SPLAT_HD Mat3<T> operator+(const Mat3<T>& A, const Mat3<T>& B) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = A.m[i][j] + B.m[i][j];
  return r;
}
template <class T> SPLAT_HD Mat3<T> transpose(const Mat3<T>& A) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = A.m[j][i];
  return r;
}
template <class T> SPLAT_HD T determinant(const Mat3<T>& A) {
  return A.m[0][0] * (A.m[1][1] * A.m[2][2] - A.m[1][2] * A.m[2][1]) -
         A.m[0][1] * (A.m[1][0] * A.m[2][2] - A.m[1][2] * A.m[2][0]) +
         A.m[0][2] * (A.m[1][0] * A.m[2][1] - A.m[1][1] * A.m[2][0]);
}

// Rotation matrix of a unit quaternion (w, x, y, z).
template <class T> SPLAT_HD Mat3<T> quat_to_rotmat(T w, T x, T y, T z) {
  Mat3<T> R;
  R.m[0][0] = 1 - 2 * (y * y + z * z); R.m[0][1] = 2 * (x * y - w * z);     R.m[0][2] = 2 * (x * z + w * y);
  R.m[1][0] = 2 * (x * y + w * z);     R.m[1][1] = 1 - 2 * (x * x + z * z); R.m[1][2] = 2 * (y * z - w * x);
  R.m[2][0] = 2 * (x * z - w * y);     R.m[2][1] = 2 * (y * z + w * x);     R.m[2][2] = 1 - 2 * (x * x + y * y);
  return R;
}

// Opacity is stored as a logit: opacity = sigmoid(logit). The one definition of the pair, for the
// kernels and for host code (strategies, initialisation), so that both evaluate the same expression.
template <class T> SPLAT_HD T sigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }
template <class T> SPLAT_HD T logit(T p) { return std::log(p / (T(1) - p)); }

}  // namespace splat
