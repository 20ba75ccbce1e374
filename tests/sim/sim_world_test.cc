// The simulated world's contract: fake servers answer on the virtual clock, a wait that nothing
// will satisfy moves the clock to its deadline at once (a 30-second timeout costs no wall
// time), a dead runtime reaches nothing, and the HTTP side plays what the scenario asks.
#include <csignal>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "sim/fake_server.h"
#include "sim/sim_launcher.h"
#include "sim/sim_network.h"
#include "tests/support/status_matchers.h"

namespace agentrt::sim {
namespace {

constexpr char kCall[] =
    R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"a":1}}})"
    "\n";

class SimWorldTest : public ::testing::Test {
 protected:
  SimWorldTest()
      : clock_(
            absl::FromUnixSeconds(1000),
            world::ManualClock::Options{world::ManualClock::Waits::kJump, absl::ZeroDuration()}) {}

  // A server with one tool, "slow", whose calls behave as `calls` say in order.
  FakeServer& Server(std::vector<v1::Call> calls,
                     v1::Server::Transport transport = v1::Server::STDIO) {
    config_.set_name("s");
    config_.set_transport(transport);
    v1::Tool* tool = config_.add_tools();
    tool->set_name("slow");
    for (v1::Call& call : calls) *tool->add_calls() = call;
    server_ = std::make_unique<FakeServer>(config_, &ledger_, &perturber_);
    server_->set_phase(ServerPhase::kLoad);
    return *server_;
  }

  std::unique_ptr<world::Process> Start(SimLauncher& launcher) {
    world::LaunchSpec spec;
    spec.argv = {"sim-server", "s"};
    absl::StatusOr<std::unique_ptr<world::Process>> process = launcher.Start(spec);
    EXPECT_OK(process);
    return *std::move(process);
  }

  world::ManualClock clock_;
  v1::Server config_;
  Ledger ledger_;
  google::protobuf::RepeatedPtrField<v1::Perturbation> none_;
  Perturber perturber_{none_};
  std::unique_ptr<FakeServer> server_;
};

v1::Call CallOf(v1::Call::Action action, std::string delay = "") {
  v1::Call call;
  call.set_action(action);
  call.set_delay(delay);
  return call;
}

TEST_F(SimWorldTest, AHangMovesTheClockToTheDeadlineAndLosesNothing) {
  SimLauncher launcher(clock_, {{"s", &Server({CallOf(v1::Call::HANG)})}});
  std::unique_ptr<world::Process> process = Start(launcher);
  absl::Time start = clock_.Now();
  ASSERT_OK(process->Write(kCall, absl::InfiniteFuture()));
  absl::StatusOr<std::string> read = process->Read(start + absl::Seconds(30));
  EXPECT_TRUE(absl::IsDeadlineExceeded(read.status())) << read.status();
  EXPECT_EQ(clock_.Now(), start + absl::Seconds(30));
  ASSERT_EQ(ledger_.effects.size(), 1u);
  EXPECT_EQ(ledger_.effects[0].tool, "slow");
  EXPECT_EQ(ledger_.effects[0].arguments, R"({"a":1})");
}

TEST_F(SimWorldTest, ADelayedAnswerArrivesAtItsVirtualTime) {
  SimLauncher launcher(clock_, {{"s", &Server({CallOf(v1::Call::ANSWER, "2s")})}});
  std::unique_ptr<world::Process> process = Start(launcher);
  absl::Time start = clock_.Now();
  ASSERT_OK(process->Write(kCall, absl::InfiniteFuture()));
  // A deadline before the answer: nothing yet, and the answer is not lost.
  EXPECT_TRUE(absl::IsDeadlineExceeded(process->Read(start + absl::Seconds(1)).status()));
  absl::StatusOr<std::string> read = process->Read(start + absl::Seconds(5));
  ASSERT_OK(read);
  EXPECT_NE(read->find(R"("id":7)"), std::string::npos) << *read;
  EXPECT_EQ(read->back(), '\n');
  EXPECT_EQ(clock_.Now(), start + absl::Seconds(2));
}

TEST_F(SimWorldTest, ACrashEndsStdoutAndTheProcessDiesOfSigkill) {
  SimLauncher launcher(clock_, {{"s", &Server({CallOf(v1::Call::CRASH)})}});
  std::unique_ptr<world::Process> process = Start(launcher);
  ASSERT_OK(process->Write(kCall, absl::InfiniteFuture()));
  absl::StatusOr<std::string> read = process->Read(clock_.Now() + absl::Seconds(1));
  ASSERT_OK(read);
  EXPECT_EQ(*read, "");
  absl::StatusOr<world::ExitStatus> exit = process->Wait(clock_.Now() + absl::Seconds(1));
  ASSERT_OK(exit);
  EXPECT_EQ(exit->signal, SIGKILL);
}

TEST_F(SimWorldTest, AnExitLeavesItsStderrForTheErrorMessage) {
  v1::Call exit = CallOf(v1::Call::EXIT);
  exit.set_exit_code(3);
  exit.set_stderr("fatal: out of cheese\n");
  SimLauncher launcher(clock_, {{"s", &Server({exit})}});
  std::unique_ptr<world::Process> process = Start(launcher);
  ASSERT_OK(process->Write(kCall, absl::InfiniteFuture()));
  absl::StatusOr<world::ExitStatus> status = process->Wait(clock_.Now() + absl::Seconds(1));
  ASSERT_OK(status);
  EXPECT_EQ(status->code, 3);
  EXPECT_EQ(process->StderrTail(clock_.Now()), "fatal: out of cheese\n");
}

TEST_F(SimWorldTest, AWaitWithNoDeadlineForWhatNeverComesFailsInsteadOfHanging) {
  SimLauncher launcher(clock_, {{"s", &Server({CallOf(v1::Call::HANG)})}});
  std::unique_ptr<world::Process> process = Start(launcher);
  ASSERT_OK(process->Write(kCall, absl::InfiniteFuture()));
  absl::StatusOr<std::string> read = process->Read(absl::InfiniteFuture());
  EXPECT_TRUE(absl::IsUnavailable(read.status())) << read.status();
}

TEST_F(SimWorldTest, AKilledRuntimeReachesNothing) {
  SimLauncher launcher(clock_, {{"s", &Server({CallOf(v1::Call::ANSWER)})}});
  std::unique_ptr<world::Process> process = Start(launcher);
  launcher.Kill();
  EXPECT_TRUE(absl::IsCancelled(process->Write(kCall, absl::InfiniteFuture())));
  EXPECT_TRUE(ledger_.effects.empty());
  world::LaunchSpec spec;
  spec.argv = {"sim-server", "s"};
  EXPECT_TRUE(absl::IsUnavailable(launcher.Start(spec).status()));
}

TEST_F(SimWorldTest, OnlySimulatedServersCanBeStarted) {
  SimLauncher launcher(clock_, {{"s", &Server({})}});
  world::LaunchSpec spec;
  spec.argv = {"node", "server.js"};
  EXPECT_TRUE(absl::IsNotFound(launcher.Start(spec).status()));
  spec.argv = {"sim-server", "other"};
  EXPECT_TRUE(absl::IsNotFound(launcher.Start(spec).status()));
}

world::HttpRequest Post(std::string body, std::string session = "") {
  world::HttpRequest request;
  request.method = "POST";
  request.url = SimEndpoint("s");
  request.body = std::move(body);
  if (!session.empty()) request.headers.emplace_back("Mcp-Session-Id", session);
  return request;
}

constexpr char kInitialize[] =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";

TEST_F(SimWorldTest, HttpGivesASessionAndLosesItWhenTold) {
  Server({CallOf(v1::Call::ANSWER)}, v1::Server::HTTP);
  config_.mutable_http()->set_lose_session_after(1);
  SimNetwork network(clock_, {{"s", server_.get()}});
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> init =
      network.Send(Post(kInitialize), clock_.Now() + absl::Seconds(5));
  ASSERT_OK(init);
  std::optional<std::string> session = world::FindHeader((*init)->headers(), "Mcp-Session-Id");
  ASSERT_TRUE(session.has_value());
  std::string call(kCall);
  call.pop_back();
  auto first = network.Send(Post(call, *session), clock_.Now() + absl::Seconds(5));
  ASSERT_OK(first);
  EXPECT_EQ((*first)->status(), 200);
  auto second = network.Send(Post(call, *session), clock_.Now() + absl::Seconds(5));
  ASSERT_OK(second);
  EXPECT_EQ((*second)->status(), 404);
}

TEST_F(SimWorldTest, HttpRedirectsAreAnsweredNeverFollowed) {
  Server({}, v1::Server::HTTP);
  config_.mutable_http()->set_redirect_to("http://elsewhere.example/mcp");
  SimNetwork network(clock_, {{"s", server_.get()}});
  auto response = network.Send(Post(kInitialize), clock_.Now() + absl::Seconds(5));
  ASSERT_OK(response);
  EXPECT_EQ((*response)->status(), 307);
  EXPECT_EQ(world::FindHeader((*response)->headers(), "Location"), "http://elsewhere.example/mcp");
}

TEST_F(SimWorldTest, HttpRefusesAnOversizedBodyByName) {
  Server({}, v1::Server::HTTP);
  config_.mutable_http()->set_oversized(true);
  SimNetwork network(clock_, {{"s", server_.get()}});
  world::HttpRequest request = Post(kInitialize);
  request.max_body_bytes = 1000;
  auto response = network.Send(request, clock_.Now() + absl::Seconds(5));
  EXPECT_TRUE(absl::IsResourceExhausted(response.status())) << response.status();
  EXPECT_NE(response.status().message().find("1000"), absl::string_view::npos);
}

TEST_F(SimWorldTest, HttpEventStreamThatHangsReachesTheReadDeadline) {
  Server({CallOf(v1::Call::HANG)}, v1::Server::HTTP);
  config_.mutable_http()->set_sse(true);
  SimNetwork network(clock_, {{"s", server_.get()}});
  std::string call(kCall);
  call.pop_back();
  auto response = network.Send(Post(call), clock_.Now() + absl::Seconds(5));
  ASSERT_OK(response);
  EXPECT_EQ(world::FindHeader((*response)->headers(), "Content-Type"), "text/event-stream");
  absl::Time deadline = clock_.Now() + absl::Seconds(30);
  EXPECT_TRUE(absl::IsDeadlineExceeded((*response)->Read(deadline).status()));
  EXPECT_EQ(clock_.Now(), deadline);
}

TEST_F(SimWorldTest, PerturbationsApplyToTheAnswerTheyName) {
  google::protobuf::RepeatedPtrField<v1::Perturbation> list;
  v1::Perturbation* p = list.Add();
  p->set_at_answer(2);
  p->set_garbage_before(true);
  p->set_delay("3s");
  Perturber perturber(list);
  config_.set_name("s");
  config_.add_tools()->set_name("slow");
  FakeServer server(config_, &ledger_, &perturber);
  server.set_phase(ServerPhase::kLoad);
  Reply first = server.Handle(kInitialize);
  EXPECT_EQ(first.lines.size(), 1u);
  EXPECT_EQ(first.delay, absl::ZeroDuration());
  Reply second = server.Handle(kCall);
  ASSERT_EQ(second.lines.size(), 2u);
  EXPECT_EQ(second.lines[0], "this is not JSON-RPC");
  EXPECT_EQ(second.delay, absl::Seconds(3));
  EXPECT_EQ(perturber.answers(), 2u);
}

TEST_F(SimWorldTest, AReorderingDeliversTheAnswerBeforeTheLinesThatPrecededIt) {
  google::protobuf::RepeatedPtrField<v1::Perturbation> list;
  list.Add()->set_at_answer(1);
  list[0].set_reorder(true);
  Perturber perturber(list);
  v1::Call call;
  call.add_before(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{}})");
  config_.set_name("s");
  *config_.add_tools()->add_calls() = call;
  config_.mutable_tools(0)->set_name("slow");
  FakeServer server(config_, &ledger_, &perturber);
  server.set_phase(ServerPhase::kLoad);
  SimLauncher launcher(clock_, {{"s", &server}});
  std::unique_ptr<world::Process> process = Start(launcher);
  ASSERT_OK(process->Write(kCall, absl::InfiniteFuture()));
  absl::StatusOr<std::string> first = process->Read(clock_.Now() + absl::Seconds(1));
  ASSERT_OK(first);
  EXPECT_NE(first->find(R"("id":7)"), std::string::npos) << *first;
  absl::StatusOr<std::string> second = process->Read(clock_.Now() + absl::Seconds(1));
  ASSERT_OK(second);
  EXPECT_NE(second->find("notifications/progress"), std::string::npos) << *second;
}

TEST_F(SimWorldTest, APartialWriteDeliversTheAnswerInTwoReads) {
  google::protobuf::RepeatedPtrField<v1::Perturbation> list;
  list.Add()->set_at_answer(1);
  list[0].set_partial_write(true);
  Perturber perturber(list);
  config_.set_name("s");
  config_.add_tools()->set_name("slow");
  FakeServer server(config_, &ledger_, &perturber);
  server.set_phase(ServerPhase::kLoad);
  SimLauncher launcher(clock_, {{"s", &server}});
  std::unique_ptr<world::Process> process = Start(launcher);
  ASSERT_OK(process->Write(kCall, absl::InfiniteFuture()));
  absl::StatusOr<std::string> first = process->Read(clock_.Now() + absl::Seconds(1));
  absl::StatusOr<std::string> second = process->Read(clock_.Now() + absl::Seconds(1));
  ASSERT_OK(first);
  ASSERT_OK(second);
  EXPECT_EQ(first->find('\n'), std::string::npos) << *first;
  EXPECT_EQ(second->back(), '\n');
  EXPECT_NE((*first + *second).find(R"("id":7)"), std::string::npos);
}

}  // namespace
}  // namespace agentrt::sim
