#version 450 core
// Shows the rendered view. The texture is linearly filtered so that a resolution scale below 1
// is magnified smoothly.
in vec2 uv;
out vec4 color;
layout(binding = 0) uniform sampler2D view_image;
void main() { color = vec4(texture(view_image, uv).rgb, 1.0); }
