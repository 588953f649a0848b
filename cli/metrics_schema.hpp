#pragma once
// The JSON Schema's lists of what an "expect" may name, generated from the metric table
// and the sweep's and exploration's totals: scenarios/scenario.schema.json holds a copy
// that scripts/update-schema-metrics.py writes and a test checks.
#include <nlohmann/json.hpp>

namespace locksim {

// Each list by the JSON Pointer of the "properties" it is in the schema: a run's metrics
// ("first_violation_at", which is no metric, is the schema's own), a sweep's totals and
// an exploration's.
nlohmann::ordered_json schema_metric_lists();

}  // namespace locksim
