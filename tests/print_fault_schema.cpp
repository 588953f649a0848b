// Prints the JSON Schema's fault entries from the families' declarations, by JSON Pointer:
// what scripts/update-schema-faults.py puts into scenarios/scenario.schema.json.
#include <iostream>

#include "scenarios/schema/fault_schema_json.hpp"

int main() {
    std::cout << locksim::fault_schema_fragments().dump(2) << '\n';
}
