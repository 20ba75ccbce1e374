#include "sim/shrink.h"

#include <cctype>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "sim/generate.h"
#include "sim/scenario_file.h"
#include "sim/swarm.h"

namespace agentrt::sim {
namespace {

// The kind of a failure: its text with every run of digits and hex letters that contains a
// digit (counts, seq numbers, ids, hashes) made one '#', so "effects: expected 2, got 1" and
// "... got 0" are one kind, and a load error for another reason is another.
std::string Kind(const std::string& difference) {
  std::string kind;
  for (std::size_t i = 0; i < difference.size();) {
    std::size_t end = i;
    bool digit = false;
    while (end < difference.size() && std::isxdigit(static_cast<unsigned char>(difference[end]))) {
      digit = digit || std::isdigit(static_cast<unsigned char>(difference[end]));
      ++end;
    }
    if (digit) {
      kind += '#';
      i = end;
    } else if (end > i) {
      kind.append(difference, i, end - i);
      i = end;
    } else {
      kind += difference[i++];
    }
  }
  return kind;
}

// Every scenario one removal away from `s`, most effective first.
std::vector<v1::Scenario> Candidates(const v1::Scenario& s) {
  std::vector<v1::Scenario> out;
  auto without = [&](auto field_of, int i) {
    v1::Scenario c = s;
    auto* field = field_of(c);
    field->erase(field->begin() + i);
    out.push_back(std::move(c));
  };
  for (int i = 0; i < s.perturbations_size(); ++i)
    without([](v1::Scenario& c) { return c.mutable_perturbations(); }, i);
  if (s.has_crash()) {
    v1::Scenario c = s;
    c.clear_crash();
    out.push_back(std::move(c));
  }
  if (s.crash().stale_owner()) {  // a plain crash instead
    v1::Scenario c = s;
    c.mutable_crash()->set_stale_owner(false);
    out.push_back(std::move(c));
  }
  for (int i = 0; i < s.storage_faults_size(); ++i)
    without([](v1::Scenario& c) { return c.mutable_storage_faults(); }, i);
  for (int i = 0; i < s.approvals_size(); ++i)
    without([](v1::Scenario& c) { return c.mutable_approvals(); }, i);
  for (int i = s.agent().steps_size() - 1; i >= 0; --i) {
    v1::Scenario c = s;
    c.mutable_agent()->mutable_steps()->erase(c.mutable_agent()->mutable_steps()->begin() + i);
    out.push_back(std::move(c));
  }
  for (int i = s.agent().model_size() - 1; i >= 0; --i) {
    v1::Scenario c = s;
    c.mutable_agent()->mutable_model()->erase(c.mutable_agent()->mutable_model()->begin() + i);
    out.push_back(std::move(c));
  }
  if (s.has_limits()) {
    v1::Scenario c = s;
    c.clear_limits();
    out.push_back(std::move(c));
  }
  for (const auto& [tool, outcome] : s.policy().tools()) {
    v1::Scenario c = s;
    c.mutable_policy()->mutable_tools()->erase(tool);
    out.push_back(std::move(c));
  }
  for (int i = 0; i < s.servers_size(); ++i) {
    if (s.servers_size() > 1) without([](v1::Scenario& c) { return c.mutable_servers(); }, i);
    const v1::Server& server = s.servers(i);
    for (int t = 0; t < server.tools_size(); ++t) {
      v1::Scenario c = s;
      auto* tools = c.mutable_servers(i)->mutable_tools();
      tools->erase(tools->begin() + t);
      out.push_back(std::move(c));
      const v1::Tool& tool = server.tools(t);
      if (tool.repeat() > 1) {
        v1::Scenario half = s;
        half.mutable_servers(i)->mutable_tools(t)->set_repeat(tool.repeat() / 2);
        out.push_back(std::move(half));
      }
      for (int k = 0; k < tool.calls_size(); ++k) {
        v1::Scenario d = s;
        auto* calls = d.mutable_servers(i)->mutable_tools(t)->mutable_calls();
        calls->erase(calls->begin() + k);
        out.push_back(std::move(d));
        if (tool.calls(k).before_size() > 0) {
          v1::Scenario e = s;
          e.mutable_servers(i)->mutable_tools(t)->mutable_calls(k)->clear_before();
          out.push_back(std::move(e));
        }
      }
    }
    if (server.has_startup()) {
      v1::Scenario c = s;
      c.mutable_servers(i)->clear_startup();
      out.push_back(std::move(c));
    }
    if (server.has_http() && !server.http().auth().required()) {
      v1::Scenario c = s;
      c.mutable_servers(i)->clear_http();
      out.push_back(std::move(c));
    }
    for (int l = 0; l < server.listings_size(); ++l)
      without([i](v1::Scenario& c) { return c.mutable_servers(i)->mutable_listings(); }, l);
    for (int l = 0; l < server.listings_size(); ++l) {
      const v1::Listing& listing = server.listings(l);
      for (int p = 0; p < listing.raw_pages_size(); ++p) {
        v1::Scenario c = s;
        auto* pages = c.mutable_servers(i)->mutable_listings(l)->mutable_raw_pages();
        pages->erase(pages->begin() + p);
        out.push_back(std::move(c));
      }
      if (listing.extra_pages() > 1) {
        v1::Scenario c = s;
        c.mutable_servers(i)->mutable_listings(l)->set_extra_pages(listing.extra_pages() / 2);
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Shrunk> Shrink(const v1::Scenario& failing,
                              const std::function<Verdict(const v1::Scenario&)>& judge) {
  absl::StatusOr<std::unique_ptr<PlayDatabase>> schema = PlayDatabase::Create();
  if (!schema.ok()) return schema.status();
  JudgeOptions options = PerturbedOnce(schema->get());
  auto play = judge ? judge : [&](const v1::Scenario& s) { return Judge(s, options); };
  Shrunk shrunk;
  shrunk.scenario = failing;
  shrunk.verdict = play(failing);
  shrunk.plays = 1;
  if (shrunk.verdict.passed) {
    return absl::FailedPreconditionError(
        absl::StrCat("scenario \"", failing.name(), "\" does not fail: nothing to shrink"));
  }
  const std::string kind = Kind(shrunk.verdict.difference);
  for (bool changed = true; changed;) {
    changed = false;
    for (v1::Scenario& candidate : Candidates(shrunk.scenario)) {
      Verdict verdict = play(candidate);
      ++shrunk.plays;
      if (!verdict.passed && Kind(verdict.difference) == kind) {
        shrunk.scenario = std::move(candidate);
        shrunk.verdict = std::move(verdict);
        changed = true;
        break;
      }
    }
  }
  return shrunk;
}

namespace {

// The shrunk scenario named `name` (when that is a name), and, when its expectations were not
// robust, expecting what it does: what it was expected to do no longer applies.
void Finish(Shrunk& shrunk, const std::string& name) {
  if (CheckScenarioName(name).ok()) shrunk.scenario.set_name(name);
  if (!shrunk.scenario.expect().robust()) {
    const Verdict& v = shrunk.verdict;
    v1::Expect expect;
    expect.set_pin_error(v.pin_error);
    expect.set_load_error(v.load_error);
    if (v.status) expect.set_status(std::string(ToString(*v.status)));
    *shrunk.scenario.mutable_expect() = std::move(expect);
  }
}

}  // namespace

absl::StatusOr<Shrunk> ShrinkSeed(const v1::Scenario& scenario, std::int64_t seed) {
  v1::Scenario perturbed = Perturb(scenario, static_cast<std::uint64_t>(seed), Baseline(scenario));
  AGENTRT_ASSIGN_OR_RETURN(Shrunk shrunk, Shrink(perturbed));
  Finish(shrunk, absl::StrCat(scenario.name(), "-seed-", seed, "-shrunk"));
  return shrunk;
}

absl::StatusOr<Shrunk> ShrinkGenerated(std::int64_t seed) {
  AGENTRT_ASSIGN_OR_RETURN(Shrunk shrunk, Shrink(GenerateWorld(seed)));
  Finish(shrunk, absl::StrCat(GeneratedName(seed), "-shrunk"));
  return shrunk;
}

}  // namespace agentrt::sim
