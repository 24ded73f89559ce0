// Whether the tests run under AddressSanitizer (the `debug` preset): GCC says so with
// __SANITIZE_ADDRESS__, clang only through __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define WARPMATCH_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WARPMATCH_UNDER_ASAN 1
#endif
#endif
