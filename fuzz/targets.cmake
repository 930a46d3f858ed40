# The fuzz targets, fuzz_<name>.cpp each: read by fuzz/CMakeLists.txt (which builds them) and
# fuzz/fuzz_tests.cmake (which runs each in CTest, with its seeds from corpus/<name>/).
set(SPLATLAB_FUZZ_TARGETS colmap_bin colmap_txt ply compressed_ply checkpoint photo)
