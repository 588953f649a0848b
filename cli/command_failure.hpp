#pragma once
// What a command's failure prints and the exit status it gives, decided once for every
// command (main catches what a command throws and asks here): unusable input or arguments
// — the scenario, its explore block, a run that would not end, shrink's refusal, an output
// that cannot be written, shards that are not one sweep — is one line on stderr and exit
// 2; anything else is a bug, exit 3. A command catches only what it goes on past (check
// and report carry on with the next file).
#include <exception>
#include <string_view>

namespace locksim {

// REQUIRES: `failure` holds an exception. `file`: the scenario the command was reading,
// named before the messages that do not name it themselves (empty: none).
int report_failure(std::exception_ptr failure, std::string_view file);

}  // namespace locksim
