#version 450 core
// A triangle covering the viewport, made from gl_VertexID (no vertex buffer): p is (0,0), (2,0),
// (0,2) and the viewport is p in [0,1]^2. The image's row 0 (texture t = 0) is its top row, so t
// runs downwards.
out vec2 uv;
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  uv = vec2(p.x, 1.0 - p.y);
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
