// The version of the module's JavaScript surface (embind.cc). The package refuses a module whose
// version is not the one its declaration of that surface (web/src/core/laya-core.ts kLayaCoreAbi)
// was written for: bump both together whenever a bound function, method or result shape changes.
#pragma once

namespace laya {

inline constexpr int kAbiVersion = 2;

}  // namespace laya
