// stb_image's decoders, compiled into the fuzz targets from the header that Debian's libstb (what
// splatlab links) is built from, so that the fuzzer's coverage reaches inside the decoders and the
// sanitizers check their memory accesses; linked from the shared library they would be a black
// box. This is how the JPEG, PNM, PNG and HDR faults in core/scene/photo_structure.h were found.
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
