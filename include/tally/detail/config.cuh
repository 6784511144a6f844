#pragma once
// Configuration shared by every tally header: the versioned namespace and the
// attributes that kernels and host/device functions carry.

#include <cuda_runtime_api.h>

#define TALLY_VERSION_NAMESPACE v0_1

// Everything lives in a versioned inline namespace so that two shared objects
// built against different tally versions never exchange kernels by mistake.
#define TALLY_NAMESPACE_BEGIN \
  namespace tally {           \
  inline namespace TALLY_VERSION_NAMESPACE {
#define TALLY_NAMESPACE_END \
  }                         \
  }

#define TALLY_HOST_DEVICE __host__ __device__
#define TALLY_FORCEINLINE __forceinline__

// Kernels are hidden so that two libraries that both instantiate the same
// tally kernel never resolve to one another's copy (as CUB does).
#if defined(__GNUC__) || defined(__clang__)
#define TALLY_KERNEL __global__ __attribute__((visibility("hidden")))
#else
#define TALLY_KERNEL __global__
#endif

// Hidden visibility on a kernel whose template arguments have internal linkage (a functor
// in an anonymous namespace, a lambda) makes nvcc warn (#1407) at every instantiation,
// in user code; the attribute is then simply moot, so the warning says nothing useful.
// (CUB avoids it by being a system header; a push/pop around the kernels crashes
// nvcc 13.0's front end.)
#if defined(__CUDACC__) && !defined(__clang__)
#pragma nv_diag_suppress 1407
#endif
