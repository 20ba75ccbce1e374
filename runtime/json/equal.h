// runtime/json/equal.h
//
// JSON equality, as JSON Schema's `enum`, `const` and `uniqueItems` define it: same kind, and
// numbers equal by value (1 == 1.0 == 1e0, exactly, from their literals), strings equal by
// code points, arrays element by element, objects with the same keys and equal values.
//
// Thread-safe; pure.
#pragma once

#include "runtime/json/document.h"

namespace agentrt::json {

bool Equal(Value a, Value b);

}  // namespace agentrt::json
