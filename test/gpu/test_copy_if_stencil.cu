// The stencil overloads, tally::copy_if(policy, first, last, stencil, result, pred) and
// tally::copy_if_into(policy, first, last, stencil, result, count, pred): first[i] is
// copied when pred(stencil[i]). The stencil is uint8 (hashed over 0..255, a different
// seed from the input's), the input another type:
//   int32 input: every policy (tally::par, warp_shuffle, shared_memory, unordered(),
//                atomic, tune<128, 4>, shared_memory + unordered()),
//   rec (24 bytes) input: tally::par and par.unordered(),
// selectivities 0%, ~1%, ~50%, ~99%, 100%, both forms (guards around the output and the
// count), every copy_if size up to 2^24 + 1 (2^22 + 1 for rec), misaligned inputs,
// stencils and outputs. Expected: cub::DeviceSelect::Flagged with the stencil turned into
// 0/1 flags by pred (checked against a host loop up to 2^16 items); stable policies item
// for item, unordered ones as multisets.
#include "copy_if_common.cuh"

namespace {

template <class T, class S, class Policies>
void check_stencil(const tt::dataset<T>& d, const tt::dataset<S>& st, Policies set, int out_lead) {
  INFO("type=", tt::type_name<T>(), " stencil=", tt::type_name<S>(), " n=", d.n, " input offset=", d.offset,
       " stencil offset=", st.offset, " output lead=", out_lead);
  REQUIRE(st.n == d.n);
  tt::guarded_output<T> out(d.n, out_lead);
  std::vector<T> host;
  std::vector<S> host_stencil;
  if (d.n <= (1 << 16)) {
    host = d.host();
    host_stencil = st.host();
  }
  for (const tt::selection<S>& sel : tt::selections<S>()) {
    tt::reference<T> expected = tt::cub_flagged(d.ptr, st.ptr, d.n, sel.pred);
    if (d.n <= (1 << 16)) {  // CUB Flagged against a host loop
      std::vector<T> want;
      for (std::size_t i = 0; i < host.size(); ++i)
        if (sel.pred(host_stencil[i])) want.push_back(host[i]);
      const std::vector<T> got = expected.host();
      bool same = got.size() == want.size();
      for (std::size_t i = 0; same && i < want.size(); ++i) same = tt::item_traits<T>::same(got[i], want[i]);
      tt::report(same, "CUB Flagged vs a host loop, select " + sel.name);
    }
    tt::for_each_policy(set, [&](const auto& policy, const std::string& label) {
      constexpr bool stable = !tt::unordered_policy_v<std::decay_t<decltype(policy)>>;
      for (tt::copy_form form : tt::copy_forms) {
        const std::string what =
            std::string(tt::copy_form_name(form)) + " (stencil) " + label + " select stencil " + sel.name;
        if (auto count = tt::run_copy_if(policy, d.ptr, d.n, st.ptr, out, sel.pred, form, what))
          tt::check_selected(out.data(), *count, expected, stable, what);
      }
    });
  }
}

template <class T, class Policies>
void stencil_suite(Policies set, long long max_n) {
  tt::failure_budget budget;
  const std::uint64_t stencil_seed = 0x5e1ec7ull;
  for (long long n : tt::copy_if_sizes(max_n))
    check_stencil(tt::make_items<T>(n), tt::make_items<std::uint8_t>(n, 0, stencil_seed), set,
                  tt::aligned_lead<T>());
  // Misaligned: the input at +1 item, the stencil at +1 and +3 bytes, the output at +1 item.
  for (int stencil_offset : {1, 3}) {
    for (long long n : tt::misaligned_sizes())
      check_stencil(tt::make_items<T>(n, 1), tt::make_items<std::uint8_t>(n, stencil_offset, stencil_seed), set,
                    tt::aligned_lead<T>() + 1);
  }
}

}  // namespace

TEST_CASE("copy_if with a uint8 stencil on int32 matches CUB DeviceSelect::Flagged: every policy, form and size") {
  stencil_suite<std::int32_t>(tt::all_policies{}, (1LL << 24) + 1);
}

TEST_CASE("copy_if with a uint8 stencil on a 24-byte struct matches CUB DeviceSelect::Flagged: par, par.unordered()") {
  stencil_suite<tt::rec>(tt::two_policies{}, (1LL << 22) + 1);
}
