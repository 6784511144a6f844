#pragma once
/// @file
/// Everything in tally: policies, function objects, device atomics and the algorithms.

#include <tally/version.hpp>
#include <tally/error.cuh>
#include <tally/policy.cuh>
#include <tally/functional.cuh>
#include <tally/atomic.cuh>
#include <tally/reduce.cuh>
#include <tally/max_element.cuh>
#include <tally/top_k.cuh>
#include <tally/copy_if.cuh>
#include <tally/memory.cuh>
