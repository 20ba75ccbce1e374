// tests/runtime/describe_step.h
//
// Everything a step holds, as one line of text, so that two steps (the one a session kept and
// the one a fresh read gives, say) compare field by field and a difference shows where.
#pragma once

#include <sstream>
#include <string>

#include "runtime/types.h"

namespace agentrt::testing {

inline std::string DescribeStep(const Step& s) {
  std::ostringstream out;
  out << s.id << "|" << s.run_id << "|" << s.index << "|" << ToString(s.status) << "|"
      << s.spec_hash << "|" << s.started_at << "|" << s.finished_at << "|" << s.decode_error;
  if (s.decision) {
    const Decision& d = *s.decision;
    out << "|d:" << d.kind << "," << d.tool << "," << d.args << "," << d.reason << "," << d.result
        << "," << d.message << "," << d.origin;
  }
  if (s.policy) {
    const PolicyDecision& p = *s.policy;
    out << "|p:" << static_cast<int>(p.outcome) << "," << p.outcome_text << "," << p.reason << ","
        << p.kind << "," << p.capability << "," << p.presentation;
  }
  if (s.observation) {
    const Observation& o = *s.observation;
    out << "|o:" << ToString(o.kind) << "," << o.content << "," << o.summary << ","
        << o.content_hash;
  }
  return out.str();
}

}  // namespace agentrt::testing
