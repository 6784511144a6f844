// The doctest main of tally_host_tests: every test/host/*.cu file is linked into this one
// executable. These tests need no GPU (they run in CI on machines without one).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
