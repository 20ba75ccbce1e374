// tests/support/status_matchers.h
//
// gmock matchers for absl::Status and absl::StatusOr<T>, because this Abseil has none
// (absl/status/status_matchers.h came later; these follow its names, so a test reads the same
// once it is there). A failure prints the status's code and message, which
// `ASSERT_TRUE(x.ok())` never did:
//
//   ASSERT_OK(store.Write(...));                       // ASSERT_THAT(..., IsOk())
//   EXPECT_THAT(Load(path), StatusIs(absl::StatusCode::kNotFound, HasSubstr("pins.json")));
//   EXPECT_THAT(ReadRun(id), IsOkAndHolds(Field(&Run::status, RunStatus::kDone)));
//
// Each matcher takes an absl::Status or any absl::StatusOr<T>. The matchers and the gmock ones
// the tests use most are named in namespace agentrt (at the end), so a test in one of its
// namespaces calls them unqualified without a `using` line of its own. Test-only.
#pragma once

#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace agentrt::test_support {
namespace internal_status {

inline const absl::Status& StatusOf(const absl::Status& status) { return status; }

template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// "which has status NOT_FOUND: run r-7 not found", or "which is OK".
inline void Explain(const absl::Status& status, ::testing::MatchResultListener* listener) {
  if (status.ok()) {
    *listener << "which is OK";
  } else {
    *listener << "which has status " << status;
  }
}

class IsOkMatcher {
 public:
  template <typename StatusType>
  bool MatchAndExplain(const StatusType& actual, ::testing::MatchResultListener* listener) const {
    const absl::Status& status = StatusOf(actual);
    Explain(status, listener);
    return status.ok();
  }
  void DescribeTo(std::ostream* os) const { *os << "is OK"; }
  void DescribeNegationTo(std::ostream* os) const { *os << "is not OK"; }
};

class StatusIsMatcher {
 public:
  StatusIsMatcher(::testing::Matcher<absl::StatusCode> code,
                  ::testing::Matcher<const std::string&> message)
      : code_(std::move(code)), message_(std::move(message)) {}

  template <typename StatusType>
  bool MatchAndExplain(const StatusType& actual, ::testing::MatchResultListener* listener) const {
    const absl::Status& status = StatusOf(actual);
    Explain(status, listener);
    if (!code_.Matches(status.code())) return false;
    ::testing::StringMatchResultListener message_listener;
    if (!message_.MatchAndExplain(std::string(status.message()), &message_listener)) {
      if (!message_listener.str().empty())
        *listener << ", whose message " << message_listener.str();
      return false;
    }
    return true;
  }
  void DescribeTo(std::ostream* os) const {
    *os << "has a status code that ";
    code_.DescribeTo(os);
    *os << ", and a message that ";
    message_.DescribeTo(os);
  }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "has a status code that ";
    code_.DescribeNegationTo(os);
    *os << ", or a message that ";
    message_.DescribeNegationTo(os);
  }

 private:
  ::testing::Matcher<absl::StatusCode> code_;
  ::testing::Matcher<const std::string&> message_;
};

// The monomorphic matcher IsOkAndHolds becomes once the StatusOr's value type is known.
template <typename StatusOrType>
class IsOkAndHoldsMatcherImpl final : public ::testing::MatcherInterface<StatusOrType> {
 public:
  using Value = typename std::remove_cvref_t<StatusOrType>::value_type;

  template <typename InnerMatcher>
  explicit IsOkAndHoldsMatcherImpl(InnerMatcher&& inner)
      : inner_(::testing::SafeMatcherCast<const Value&>(std::forward<InnerMatcher>(inner))) {}

  bool MatchAndExplain(StatusOrType actual,
                       ::testing::MatchResultListener* listener) const override {
    if (!actual.ok()) {
      Explain(actual.status(), listener);
      return false;
    }
    ::testing::StringMatchResultListener inner_listener;
    bool matched = inner_.MatchAndExplain(*actual, &inner_listener);
    *listener << "which is OK and holds " << ::testing::PrintToString(*actual);
    if (!inner_listener.str().empty()) *listener << ", " << inner_listener.str();
    return matched;
  }
  void DescribeTo(std::ostream* os) const override {
    *os << "is OK and holds a value that ";
    inner_.DescribeTo(os);
  }
  void DescribeNegationTo(std::ostream* os) const override {
    *os << "is not OK, or holds a value that ";
    inner_.DescribeNegationTo(os);
  }

 private:
  ::testing::Matcher<const Value&> inner_;
};

template <typename InnerMatcher>
class IsOkAndHoldsMatcher {
 public:
  explicit IsOkAndHoldsMatcher(InnerMatcher inner) : inner_(std::move(inner)) {}

  template <typename StatusOrType>
  operator ::testing::Matcher<StatusOrType>() const {  // NOLINT: gmock converts implicitly
    return ::testing::Matcher<StatusOrType>(
        new IsOkAndHoldsMatcherImpl<const StatusOrType&>(inner_));
  }

 private:
  InnerMatcher inner_;
};

}  // namespace internal_status

// Matches an OK status, or a StatusOr that holds a value.
inline ::testing::PolymorphicMatcher<internal_status::IsOkMatcher> IsOk() {
  return ::testing::MakePolymorphicMatcher(internal_status::IsOkMatcher());
}

// Matches a status whose code matches `code` (a StatusCode or a matcher of one); with
// `message`, whose message matches it too (a string for equality, or a matcher such as
// HasSubstr). A StatusOr matches by its status.
inline ::testing::PolymorphicMatcher<internal_status::StatusIsMatcher> StatusIs(
    ::testing::Matcher<absl::StatusCode> code,
    ::testing::Matcher<const std::string&> message = ::testing::_) {
  return ::testing::MakePolymorphicMatcher(
      internal_status::StatusIsMatcher(std::move(code), std::move(message)));
}

// Matches a StatusOr that holds a value matching `inner` (a value for equality, or a matcher).
template <typename InnerMatcher>
internal_status::IsOkAndHoldsMatcher<std::decay_t<InnerMatcher>> IsOkAndHolds(
    InnerMatcher&& inner) {
  return internal_status::IsOkAndHoldsMatcher<std::decay_t<InnerMatcher>>(
      std::forward<InnerMatcher>(inner));
}

}  // namespace agentrt::test_support

// The matchers the tests use most, named once for every test in agentrt's namespaces, so a test
// file spells only the ones it alone needs.
namespace agentrt {
using ::agentrt::test_support::IsOk;
using ::agentrt::test_support::IsOkAndHolds;
using ::agentrt::test_support::StatusIs;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::Optional;
using ::testing::Pair;
using ::testing::SizeIs;
using ::testing::StartsWith;
}  // namespace agentrt

// The common case, spelled short: the expression (a Status or a StatusOr) is OK, and if not
// the failure shows its code and message. Both take a streamed message like ASSERT_THAT.
#define ASSERT_OK(expression) ASSERT_THAT(expression, ::agentrt::test_support::IsOk())
#define EXPECT_OK(expression) EXPECT_THAT(expression, ::agentrt::test_support::IsOk())
