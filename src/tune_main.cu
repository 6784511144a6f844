// tally-tune: the tuner as its own executable (target tally_tune, built on request:
// `cmake --build <build dir> --target tally_tune`), so that its hundreds of candidate
// kernels stay out of the default build. `tally tune ARGS` runs `tally-tune ARGS` when it
// lies next to `tally` (src/main.cu).

#include "commands.hpp"

int main(int argc, char** argv) { return tally_tool::tune_main(argc - 1, argv + 1); }
