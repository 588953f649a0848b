#pragma once
// Shared by the fuzz targets: what to do when an input breaks a promise. A breach
// prints one line naming the promise and aborts, so libFuzzer saves the input as a
// crash-* file with the message and the stack above it.
//
// Each promise the targets check themselves has a short id. A session that has
// recorded a finding can fuzz on past it: LOCKSIM_FUZZ_KNOWN=id,id (scripts/fuzz.sh
// passes it through) turns those breaches into one note on stderr per process. Crashes,
// leaks, sanitizer reports and unexpected exceptions are never ignored.
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <typeinfo>

namespace locksim_fuzz {

inline std::string type_name(const std::type_info& type) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
    return status == 0 && name ? name.get() : type.name();
}

[[noreturn]] inline void finding(const std::string& what, const std::string& detail) {
    std::fprintf(stderr, "\n==locksim-fuzz== FINDING: %s: %s\n", what.c_str(), detail.c_str());
    std::fflush(stderr);
    std::abort();
}

inline bool is_known(std::string_view id) {
    static const std::set<std::string, std::less<>> known = [] {
        std::set<std::string, std::less<>> ids;
        const char* list = std::getenv("LOCKSIM_FUZZ_KNOWN");
        std::string_view rest = list ? list : "";
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            ids.emplace(rest.substr(0, comma));
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        }
        return ids;
    }();
    return known.contains(id);
}

// A promise of the project's that this input broke; returns only if `id` is known.
inline void promise_broken(std::string_view id, const std::string& what, const std::string& detail) {
    if (!is_known(id)) finding(what + " [" + std::string(id) + "]", detail);
    static std::set<std::string, std::less<>> noted;
    if (noted.emplace(id).second)
        std::fprintf(stderr, "==locksim-fuzz== known finding [%.*s] seen again; going on (LOCKSIM_FUZZ_KNOWN)\n",
                     static_cast<int>(id.size()), id.data());
}

// The position of the first control character (below 0x20 or 0x7f, `allowed` aside),
// or npos: text that reaches terminals and reports may carry none.
inline std::size_t control_character(std::string_view text, std::string_view allowed = {}) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 || c == 0x7f) && allowed.find(static_cast<char>(c)) == std::string_view::npos) return i;
    }
    return std::string_view::npos;
}

// An exception other than those the call may throw: its dynamic type and message.
[[noreturn]] inline void unexpected_exception(const char* call, const std::exception& error) {
    finding(call, "threw " + type_name(typeid(error)) + ": " + error.what());
}

[[noreturn]] inline void unexpected_non_std_exception(const char* call) {
    const std::type_info* type = abi::__cxa_current_exception_type();
    finding(call, "threw a non-std exception of type " + (type ? type_name(*type) : std::string("?")));
}

}  // namespace locksim_fuzz
