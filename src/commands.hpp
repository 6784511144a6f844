#pragma once
// The subcommands of the tally tool (tune_main: of the tally-tune executable). Each takes
// the arguments after its name and returns the exit code: 0 success, 1 a check failed or
// CUDA failed, 2 a bad command line.

namespace tally_tool {

int verify_main(int argc, char** argv);  ///< verify.cu
int bench_main(int argc, char** argv);   ///< bench.cu
int tune_main(int argc, char** argv);    ///< tune.cu: in tally-tune (tune_main.cu), not in tally
int plot_main(int argc, char** argv);    ///< plot.cu

}  // namespace tally_tool
