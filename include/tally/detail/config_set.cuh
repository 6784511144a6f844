#pragma once
// The launch configurations a call may take, as a compile-time set, and the runtime pick
// among them. A kernel's shape is a template argument, so an `automatic` call compiles
// one kernel per configuration the tuning tables could choose for it (and no other),
// then launches the one the table chooses for n at run time.

#include <tally/detail/config.cuh>

#include <cstddef>
#include <type_traits>
#include <utility>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class Config, int Capacity = 32>
struct config_set {
  Config items[Capacity] = {};
  int size = 0;
  constexpr void add(Config config) {
    for (int i = 0; i < size; ++i)
      if (items[i] == config) return;
    if (size < Capacity) items[size++] = config;
  }
};

/// Calls launch(std::integral_constant<std::size_t, I>{}) for the entry I of Set equal to
/// `chosen` (launch reads Set.items[I] as a constant expression), or for entry 0 when no
/// entry is equal (cannot happen when Set was built from the table that chose).
template <const auto& Set, class Config, class Launch, std::size_t... I>
void launch_config(const Config& chosen, Launch&& launch, std::index_sequence<I...>) {
  bool launched = false;
  auto try_one = [&](auto index) {
    if (!launched && Set.items[decltype(index)::value] == chosen) {
      launch(index);
      launched = true;
    }
  };
  (try_one(std::integral_constant<std::size_t, I>{}), ...);
  if (!launched) launch(std::integral_constant<std::size_t, 0>{});
}

/// launch_config over every entry of Set.
template <const auto& Set, class Config, class Launch>
void launch_config(const Config& chosen, Launch&& launch) {
  launch_config<Set>(chosen, launch, std::make_index_sequence<std::size_t(Set.size)>{});
}

}  // namespace detail
TALLY_NAMESPACE_END
