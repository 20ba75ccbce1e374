#include "runtime/engine/session_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"

namespace agentrt::internal {
namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

std::string_view EventName(const SessionState::Event& event) {
  static constexpr std::string_view kNames[] = {"Stage", "Committed", "Allow",      "Take",
                                                "Grant", "Enter",     "FailPaused", "Release"};
  return kNames[event.index()];
}

}  // namespace

absl::Status SessionState::Apply(Event event) {
  using State = decltype(state_);
  // The next state, or nullopt when the table has no such transition.
  std::optional<State> next = std::visit(
      Overloaded{
          [](Driving&, Stage& e) -> std::optional<State> { return Driving{std::move(e.decision)}; },
          [](Driving&, Committed&) -> std::optional<State> { return Driving{}; },
          [](Allowed& s, Committed&) -> std::optional<State> {
            return Allowed{std::move(s.call), std::nullopt};
          },
          [](Driving& s, Allow& e) -> std::optional<State> {
            return Allowed{std::move(e.call), std::move(s.staged)};
          },
          [](EnteringGrant& s, Allow& e) -> std::optional<State> {
            if (s.call) return std::nullopt;
            return EnteringGrant{std::move(s.grant), std::move(e.call)};
          },
          [](Allowed& s, Take& e) -> std::optional<State> {
            if (e.into != nullptr) *e.into = std::move(s.call);
            return Driving{std::move(s.staged)};
          },
          [](EnteringGrant& s, Take& e) -> std::optional<State> {
            if (!s.call) return std::nullopt;
            if (e.into != nullptr) *e.into = *std::move(s.call);
            return EnteringGrant{std::move(s.grant), std::nullopt};
          },
          [](Driving& s, GrantResumed& e) -> std::optional<State> {
            if (s.staged) return std::nullopt;
            return EnteringGrant{std::move(e.grant), std::nullopt};
          },
          [](EnteringGrant& s, Enter&) -> std::optional<State> {
            if (s.call) return std::nullopt;
            return Driving{};
          },
          [](Driving& s, Enter&) -> std::optional<State> { return std::move(s); },
          [](Driving& s, FailPaused&) -> std::optional<State> {
            if (s.staged) return std::nullopt;
            return FailingPaused{};
          },
          [](auto&, Release&) -> std::optional<State> { return Released{}; },
          [](auto&, auto&) -> std::optional<State> { return std::nullopt; },
      },
      state_, event);
  if (!next) {
    return absl::InternalError(absl::StrCat("driver session: no transition from ", ToAbsl(name()),
                                            " on ", ToAbsl(EventName(event))));
  }
  state_ = *std::move(next);
  return absl::OkStatus();
}

std::optional<RunStatus> SessionState::guard() const {
  if (released()) return std::nullopt;
  if (std::holds_alternative<EnteringGrant>(state_) ||
      std::holds_alternative<FailingPaused>(state_)) {
    return RunStatus::kWaitingForApproval;
  }
  return RunStatus::kRunning;
}

const StagedDecision* SessionState::staged() const {
  if (const auto* s = std::get_if<Driving>(&state_); s != nullptr && s->staged) return &*s->staged;
  if (const auto* s = std::get_if<Allowed>(&state_); s != nullptr && s->staged) return &*s->staged;
  return nullptr;
}

const AllowedCall* SessionState::call() const {
  if (const auto* s = std::get_if<Allowed>(&state_)) return &s->call;
  if (const auto* s = std::get_if<EnteringGrant>(&state_); s != nullptr && s->call) {
    return &*s->call;
  }
  return nullptr;
}

const Grant* SessionState::grant() const {
  const auto* s = std::get_if<EnteringGrant>(&state_);
  return s != nullptr ? &s->grant : nullptr;
}

std::string_view SessionState::name() const {
  static constexpr std::string_view kNames[] = {"Driving", "Allowed", "EnteringGrant",
                                                "FailingPaused", "Released"};
  return kNames[state_.index()];
}

}  // namespace agentrt::internal
