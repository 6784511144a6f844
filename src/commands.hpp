#pragma once
// The subcommands of the tally tool (tune_main: of the tally-tune executable). Each takes
// the arguments after its name and returns the exit code: 0 success, 1 a check failed or
// CUDA failed, 2 a bad command line.

#include <string>

namespace tally_tool {

int verify_main(int argc, char** argv);  ///< verify.cu
int bench_main(int argc, char** argv);   ///< bench.cu
int tune_main(int argc, char** argv);    ///< tune.cu: in tally-tune (tune_main.cu), not in tally
int plot_main(int argc, char** argv);    ///< plot.cu

/// The directory of the running tool, <build dir> (main.cu; "" when /proc/self/exe cannot
/// be read): tally-tune is there, the benchmarks in its benchmarks/.
std::string tool_directory();

}  // namespace tally_tool
