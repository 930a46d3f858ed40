#version 450 core
// World-space line vertices projected with the viewer camera (see ui/scene_lines.h clip_matrix).
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color_in;
uniform mat4 clip_from_world;
out vec4 color;
void main() {
  color = color_in;
  gl_Position = clip_from_world * vec4(position, 1.0);
}
