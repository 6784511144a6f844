#pragma once
// Configuration shared by every tally header: the versioned namespace and the
// attributes that kernels and host/device functions carry.

#include <tally/version.hpp>

#include <cuda_runtime_api.h>

// --- the versioned namespace ------------------------------------------------------------
// Everything lives in an inline namespace named after the version and, under nvcc, the
// architectures the translation unit is compiled for (__CUDA_ARCH_LIST__, the same in the
// host and device passes; CUB's namespace carries it too): tally::v0_1_0_SM_800_900. Two
// shared objects built against different tally versions, or for different architectures,
// then never exchange an inline function or a kernel by mistake (the one-definition rule
// would let the linker keep either copy, and a copy compiled for other architectures has
// other kernels and other tuning). The version comes from version.hpp, its one source.

#define TALLY_PP_CAT_(a, b) a##b
#define TALLY_PP_CAT(a, b) TALLY_PP_CAT_(a, b)
#define TALLY_PP_CAT3(a, b, c) TALLY_PP_CAT(TALLY_PP_CAT(a, b), c)
#define TALLY_PP_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, n, ...) n
#define TALLY_PP_COUNT(...) TALLY_PP_COUNT_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
// _SM_a_b_c from the list a, b, c (at most 12 architectures; more get _SM_MANY).
#define TALLY_SM_1(a) _SM_##a
#define TALLY_SM_2(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_1(__VA_ARGS__))
#define TALLY_SM_3(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_2(__VA_ARGS__))
#define TALLY_SM_4(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_3(__VA_ARGS__))
#define TALLY_SM_5(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_4(__VA_ARGS__))
#define TALLY_SM_6(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_5(__VA_ARGS__))
#define TALLY_SM_7(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_6(__VA_ARGS__))
#define TALLY_SM_8(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_7(__VA_ARGS__))
#define TALLY_SM_9(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_8(__VA_ARGS__))
#define TALLY_SM_10(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_9(__VA_ARGS__))
#define TALLY_SM_11(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_10(__VA_ARGS__))
#define TALLY_SM_12(a, ...) TALLY_PP_CAT3(_SM_##a, _, TALLY_SM_TAIL_11(__VA_ARGS__))
#define TALLY_SM_TAIL_1(a) a
#define TALLY_SM_TAIL_2(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_1(__VA_ARGS__))
#define TALLY_SM_TAIL_3(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_2(__VA_ARGS__))
#define TALLY_SM_TAIL_4(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_3(__VA_ARGS__))
#define TALLY_SM_TAIL_5(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_4(__VA_ARGS__))
#define TALLY_SM_TAIL_6(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_5(__VA_ARGS__))
#define TALLY_SM_TAIL_7(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_6(__VA_ARGS__))
#define TALLY_SM_TAIL_8(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_7(__VA_ARGS__))
#define TALLY_SM_TAIL_9(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_8(__VA_ARGS__))
#define TALLY_SM_TAIL_10(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_9(__VA_ARGS__))
#define TALLY_SM_TAIL_11(a, ...) TALLY_PP_CAT3(a, _, TALLY_SM_TAIL_10(__VA_ARGS__))
#define TALLY_SM_0(...) _SM_MANY
#define TALLY_SM_LIST(...) TALLY_PP_CAT(TALLY_SM_, TALLY_PP_COUNT(__VA_ARGS__))(__VA_ARGS__)

#define TALLY_VERSION_NAME \
  TALLY_PP_CAT(TALLY_PP_CAT3(v, TALLY_VERSION_MAJOR, _), TALLY_PP_CAT3(TALLY_VERSION_MINOR, _, TALLY_VERSION_PATCH))
// A program tuned with a table of its own (TALLY_USER_TUNING_HEADER, tuning/select.cuh)
// compiles other kernels and launches them with other shapes: its namespace ends in _U.
#if defined(TALLY_USER_TUNING_HEADER)
#define TALLY_TUNING_SUFFIX _U
#else
#define TALLY_TUNING_SUFFIX
#endif
#if defined(__CUDA_ARCH_LIST__)
#define TALLY_VERSION_NAMESPACE \
  TALLY_PP_CAT3(TALLY_VERSION_NAME, TALLY_SM_LIST(__CUDA_ARCH_LIST__), TALLY_TUNING_SUFFIX)
#else
#define TALLY_VERSION_NAMESPACE TALLY_PP_CAT(TALLY_VERSION_NAME, TALLY_TUNING_SUFFIX)
#endif

#define TALLY_NAMESPACE_BEGIN \
  namespace tally {           \
  inline namespace TALLY_VERSION_NAMESPACE {
#define TALLY_NAMESPACE_END \
  }                         \
  }

#define TALLY_HOST_DEVICE __host__ __device__
#define TALLY_FORCEINLINE __forceinline__

// --- kernels ----------------------------------------------------------------------------
// Kernels are defined in a namespace of hidden visibility (TALLY_KERNELS_BEGIN/END, inside
// detail), so that two libraries that both instantiate the same tally kernel never resolve
// to one another's copy (CUB hides its kernels too). The namespace carries the attribute,
// not each kernel: on a kernel whose template arguments have internal linkage (a functor
// in an anonymous namespace, a lambda) the attribute itself draws nvcc's warning #1407 in
// the user's build, and a namespace's does not.
#if defined(__GNUC__) || defined(__clang__)
#define TALLY_KERNELS_BEGIN namespace kernels __attribute__((visibility("hidden"))) {
#else
#define TALLY_KERNELS_BEGIN namespace kernels {
#endif
#define TALLY_KERNELS_END }
#define TALLY_KERNEL __global__
