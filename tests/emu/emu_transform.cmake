# \brief A CUDA source of the engine as the emulator's host build compiles it (cmake -P, at build
# time): `k<<<cfg>>>(args)` becomes `k % abft_emu::cfg(cfg) % abft_emu::args(args)` and a
# kernel's `extern __shared__ ... unsigned char name[];` a pointer to the block's shared memory
# (tests/emu/cuda_emu.hpp). INPUT: the .cu, OUTPUT: the .cpp to write.
file(READ "${INPUT}" src)
string(REPLACE "<<<" " % abft_emu::cfg(" src "${src}")
string(REPLACE ">>>(" ") % abft_emu::args(" src "${src}")
string(REGEX REPLACE "extern __shared__[^;]*unsigned char ([A-Za-z_][A-Za-z0-9_]*)\\[\\];"
       "unsigned char* \\1 = ::abft_emu::dynamic_smem();" src "${src}")
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by tests/emu/emu_transform.cmake: do not edit.\n#line 1 \"${INPUT}\"\n${src}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
