#pragma once
// A fault placed by what happens rather than by a time.
#include <string>
#include <utility>
#include <vector>

#include "sim/trace.hpp"

namespace locksim {

// The `nth` trace event of `kind` on `node` (any node if empty) whose fields include
// `fields` ("when server-1 starts preparing customer 42's invoice, pause it").
struct EventTrigger {
    std::string kind;
    std::string node;
    std::vector<std::pair<std::string, FieldValue>> fields;
    int nth = 1;
};

}  // namespace locksim
