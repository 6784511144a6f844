// <tally/version.hpp> is host C++: this file is compiled by the C++ compiler, not nvcc.
#include <tally/version.hpp>

#ifdef TALLY_CONSUMER_EXPECTED_VERSION  // the version CMake's package reported, as MAJOR*10000+MINOR*100+PATCH
static_assert(TALLY_VERSION == TALLY_CONSUMER_EXPECTED_VERSION,
              "<tally/version.hpp> and the CMake package's version differ");
#endif
static_assert(TALLY_VERSION == TALLY_VERSION_MAJOR * 10000 + TALLY_VERSION_MINOR * 100 + TALLY_VERSION_PATCH,
              "TALLY_VERSION does not match its parts");

int tally_consumer_host_version() { return TALLY_VERSION; }
