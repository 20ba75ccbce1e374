#include "runtime/json/equal.h"

#include "runtime/json/decimal.h"

namespace agentrt::json {

bool Equal(Value a, Value b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kNull:
      return true;
    case Kind::kBool:
      return a.bool_value() == b.bool_value();
    case Kind::kNumber:
      return a.number_literal() == b.number_literal() ||
             CompareDecimal(ParseDecimal(a.number_literal()), ParseDecimal(b.number_literal())) ==
                 0;
    case Kind::kString:
      return a.string_value() == b.string_value();
    case Kind::kArray:
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!Equal(a.element(i), b.element(i))) return false;
      }
      return true;
    case Kind::kObject:
      // Members are sorted by key in both, so equal objects line up index by index.
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.key(i) != b.key(i) || !Equal(a.member(i), b.member(i))) return false;
      }
      return true;
  }
  return false;
}

}  // namespace agentrt::json
