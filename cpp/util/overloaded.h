// Builds one visitor from several lambdas, for std::visit over the op and step variants. Visiting
// with no catch-all lambda makes the compiler list every place a new alternative must be handled.
#pragma once

namespace laya {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace laya
