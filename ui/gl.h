#pragma once
// The one place that includes the GL loader: glad's header must come before any other GL header,
// and GLFW must not pull in its own (GLFW_INCLUDE_NONE).
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
