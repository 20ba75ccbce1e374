// What a cassette keeps of an exchange that carries OAuth secrets
// (runtime/replay/internal/secret_redactor.h): the secret fields of a token request's form and
// the secret string members of its JSON answer become "[redacted]", at any depth and however the
// answer was cut into chunks, and every other byte is kept as it was, so a replay still matches
// the request and parses the answer. HttpSendOf (convert.h) applies the form's rule to a request
// that says it carries secrets, and to no other.
#include "runtime/replay/internal/secret_redactor.h"

#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/replay/internal/convert.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/world/network.h"
#include "tests/support/status_matchers.h"

namespace agentrt::replay::internal {
namespace {

// The redacted form of `body` fed as one chunk to a fresh redactor.
std::string Whole(std::string_view body) { return JsonRedactor().Feed(body); }

// The redacted form of `body` fed in the chunks `cuts` (offsets, ascending) make of it, one
// output per chunk.
std::vector<std::string> Chunked(std::string_view body, const std::vector<std::size_t>& cuts) {
  JsonRedactor redactor;
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t cut : cuts) {
    out.push_back(redactor.Feed(body.substr(start, cut - start)));
    start = cut;
  }
  out.push_back(redactor.Feed(body.substr(start)));
  return out;
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += part;
  return out;
}

// ---- JsonRedactor ----

TEST(JsonRedactorTest, SecretMembersAtAnyDepthAreRedactedAndEverythingElseKept) {
  constexpr std::string_view kAnswer =
      R"({"token_type":"Bearer","access_token":"at-Z9q","expires_in":3600,)"
      R"("nested":{"list":[{"id_token":"eyJ.idt"},{"client_secret":"cs-77","x":"client_secret"}],)"
      R"("registration_access_token":"rat-1"},)"
      "\n  \"refresh_token\" :\t\"rt-ZZ\" ,\r\n"
      R"("scope":"tickets:read offline_access","access_token_hint":"kept","Access_Token":"kept"})";

  EXPECT_EQ(Whole(kAnswer),
            R"({"token_type":"Bearer","access_token":"[redacted]","expires_in":3600,)"
            R"("nested":{"list":[{"id_token":"[redacted]"},{"client_secret":"[redacted]",)"
            R"("x":"client_secret"}],"registration_access_token":"[redacted]"},)"
            "\n  \"refresh_token\" :\t\"[redacted]\" ,\r\n"
            R"("scope":"tickets:read offline_access","access_token_hint":"kept",)"
            R"("Access_Token":"kept"})");
}

TEST(JsonRedactorTest, AnAnswerWithoutSecretsPassesByteForByte) {
  for (std::string_view body : {
           std::string_view(R"({"error":"invalid_grant","error_description":"the code \"x\" )"
                            R"(expired\\ \u00e9\ud83d\ude00","n":[1,2.5e3,true,null,{}]})"),
           std::string_view(" {\n\t\"a\" : [ \"access_token\" , \"refresh_token\" ] \r\n} "),
           std::string_view("not json: access_token=abc; <html>\"refresh_token\"</html>"),
           std::string_view(""),
       }) {
    SCOPED_TRACE(body);
    EXPECT_EQ(Whole(body), body);
  }
}

TEST(JsonRedactorTest, EscapedQuotesAndBackslashesInsideASecretDoNotEndItEarly) {
  // The value ends in an escaped backslash right before its closing quote, and holds an escaped
  // quote and a \u escape of a quote: none of them may close it, and what follows is kept.
  EXPECT_EQ(Whole(R"({"access_token":"a\"b\u0022c\\d\\","after":"kept","refresh_token":"\\"})"),
            R"({"access_token":"[redacted]","after":"kept","refresh_token":"[redacted]"})");
  EXPECT_EQ(Whole(R"({"id_token":"\"}","next":{"k":"v"}})"),
            R"({"id_token":"[redacted]","next":{"k":"v"}})");
}

TEST(JsonRedactorTest, AMemberNameWrittenWithEscapesIsDecodedBeforeItIsCompared) {
  EXPECT_EQ(Whole(R"({"access\u005ftoken":"s1","refresh\u005Ftoken":"s2",)"
                  R"("\u0061ccess_token":"s3","id_toke\u006e":"s4","other\u005fname":"kept"})"),
            R"({"access\u005ftoken":"[redacted]","refresh\u005Ftoken":"[redacted]",)"
            R"("\u0061ccess_token":"[redacted]","id_toke\u006e":"[redacted]",)"
            R"("other\u005fname":"kept"})");
}

TEST(JsonRedactorTest, ASecretMemberWhoseValueIsNotAStringIsLeftAlone) {
  // Only a string is a secret; an object under a secret's name is walked into like any other.
  EXPECT_EQ(Whole(R"({"access_token":12345,"refresh_token":null,"id_token":true,)"
                  R"("client_secret":{"access_token":"inner","n":7},"expires_in":"3600"})"),
            R"({"access_token":12345,"refresh_token":null,"id_token":true,)"
            R"("client_secret":{"access_token":"[redacted]","n":7},"expires_in":"3600"})");
}

// The answer as a network may hand it over: cut anywhere, inside a name, inside an escape,
// inside a secret. Secrets here are the only capital letters, so a chunk's output that showed
// any byte of one would show a capital.
constexpr std::string_view kCutAnswer =
    R"({"access\u005ftoken":"EYJ\"HB\\G\u0041CI","token_type":"bearer","expires_in":60,)"
    R"("refresh_token" : "RT-SECRET","scope":"a b","n":{"id_token":"IDT"}})";
constexpr std::string_view kCutRedacted =
    R"({"access\u005ftoken":"[redacted]","token_type":"bearer","expires_in":60,)"
    R"("refresh_token" : "[redacted]","scope":"a b","n":{"id_token":"[redacted]"}})";

bool ShowsASecretByte(std::string_view text) {
  for (char c : text) {
    if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

TEST(JsonRedactorTest, AnAnswerCutInTwoAtEveryPointRedactsAsWhole) {
  ASSERT_EQ(Whole(kCutAnswer), kCutRedacted);
  for (std::size_t cut = 0; cut <= kCutAnswer.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut) + ": " + std::string(kCutAnswer.substr(0, cut)) +
                 " | " + std::string(kCutAnswer.substr(cut)));
    std::vector<std::string> parts = Chunked(kCutAnswer, {cut});
    EXPECT_EQ(Joined(parts), kCutRedacted);
    EXPECT_FALSE(ShowsASecretByte(parts[0])) << parts[0];
    EXPECT_FALSE(ShowsASecretByte(parts[1])) << parts[1];
    // Each chunk's bytes come out with it: the first chunk's output is the redacted prefix.
    EXPECT_TRUE(kCutRedacted.starts_with(parts[0])) << parts[0];
  }
}

TEST(JsonRedactorTest, AnAnswerCutInThreeAnywhereOrFedByteByByteRedactsAsWhole) {
  for (std::size_t first = 0; first <= kCutAnswer.size(); ++first) {
    for (std::size_t second = first; second <= kCutAnswer.size(); ++second) {
      std::vector<std::string> parts = Chunked(kCutAnswer, {first, second});
      ASSERT_EQ(Joined(parts), kCutRedacted) << "cuts at " << first << " and " << second;
    }
  }
  std::vector<std::size_t> every_byte;
  for (std::size_t i = 1; i < kCutAnswer.size(); ++i) every_byte.push_back(i);
  std::vector<std::string> bytes = Chunked(kCutAnswer, every_byte);
  EXPECT_EQ(Joined(bytes), kCutRedacted);
  for (const std::string& out : bytes) EXPECT_FALSE(ShowsASecretByte(out)) << out;
}

// ---- RedactForm ----

TEST(RedactFormTest, SecretFieldsAreRedactedAndTheOthersKeptByteForByte) {
  struct Row {
    std::string_view form;
    std::string_view redacted;
  };
  for (const Row& row : {
           Row{"grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA"
               "&redirect_uri=http%3A%2F%2F127.0.0.1%3A41873%2Fcallback"
               "&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&client_id=agentrt"
               "&client_secret=s3cr3t%2B%3D&resource=https%3A%2F%2Fmcp.example.com%2Fmcp",
               "grant_type=authorization_code&code=[redacted]"
               "&redirect_uri=http%3A%2F%2F127.0.0.1%3A41873%2Fcallback"
               "&code_verifier=[redacted]&client_id=agentrt"
               "&client_secret=[redacted]&resource=https%3A%2F%2Fmcp.example.com%2Fmcp"},
           // The grant's name is a value here, not a field: kept.
           Row{"grant_type=refresh_token&refresh_token=rt-1&scope=a+b",
               "grant_type=refresh_token&refresh_token=[redacted]&scope=a+b"},
           Row{"grant_type=client_credentials&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth"
               "%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=eyJ.eyJ.sig",
               "grant_type=client_credentials&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth"
               "%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=[redacted]"},
           Row{"assertion=a&subject_token=s&password=p&username=u",
               "assertion=[redacted]&subject_token=[redacted]&password=[redacted]&username=u"},
           // A value holding '=' is redacted whole; an empty one is redacted too.
           Row{"client_secret=a=b&code=&x=1", "client_secret=[redacted]&code=[redacted]&x=1"},
           // Names that merely contain a secret's name, a field without '=', empty pairs.
           Row{"codes=1&xcode=2&code_challenge=3&code&&client_secret_x=4&",
               "codes=1&xcode=2&code_challenge=3&code&&client_secret_x=4&"},
           Row{"", ""},
       }) {
    SCOPED_TRACE(row.form);
    EXPECT_EQ(RedactForm(row.form), row.redacted);
  }
}

TEST(RedactFormTest, APercentEncodedFieldNameIsDecodedBeforeItIsCompared) {
  // The server decodes the name, so client%5Fsecret is client_secret to it; the name is kept as
  // written, so a replay that writes it the same way still matches.
  EXPECT_EQ(RedactForm("client%5Fsecret=s1&client%5fsecret=s2&%63ode=c&code%5Fverifier=v"
                       "&%72efresh%5Ftoken=r&refresh+token=kept&client%5=kept"),
            "client%5Fsecret=[redacted]&client%5fsecret=[redacted]&%63ode=[redacted]"
            "&code%5Fverifier=[redacted]&%72efresh%5Ftoken=[redacted]&refresh+token=kept"
            "&client%5=kept");
}

// ---- HttpSendOf ----

world::HttpRequest TokenRequest(std::string content_type, bool carries_secrets) {
  world::HttpRequest request;
  request.method = "POST";
  request.url = "https://auth.example.com/token";
  request.headers = {{"Content-Type", std::move(content_type)}};
  request.body = "grant_type=authorization_code&code=c0de&client_secret=s3cr3t&client_id=agentrt";
  request.carries_secrets = carries_secrets;
  return request;
}

TEST(HttpSendOfTest, TheFormBodyOfARequestCarryingSecretsIsRecordedRedacted) {
  for (std::string type :
       {"application/x-www-form-urlencoded", "Application/X-WWW-Form-Urlencoded; charset=utf-8"}) {
    SCOPED_TRACE(type);
    v1::Exchange e = HttpSendOf(TokenRequest(type, true), absl::InfiniteFuture());
    EXPECT_EQ(e.http().send().body(),
              "grant_type=authorization_code&code=[redacted]&client_secret=[redacted]"
              "&client_id=agentrt");
  }
}

TEST(HttpSendOfTest, ABodyIsRecordedVerbatimUnlessItIsTheFormOfARequestCarryingSecrets) {
  world::HttpRequest plain = TokenRequest("application/x-www-form-urlencoded", false);
  EXPECT_EQ(HttpSendOf(plain, absl::InfiniteFuture()).http().send().body(), plain.body);
  // A registration request carries secrets in its answer; its JSON body is not a form.
  world::HttpRequest json = TokenRequest("application/json", true);
  json.body = R"({"client_name":"agentrt","code":"kept"})";
  EXPECT_EQ(HttpSendOf(json, absl::InfiniteFuture()).http().send().body(), json.body);
  world::HttpRequest untyped = TokenRequest("", true);
  untyped.headers.clear();
  EXPECT_EQ(HttpSendOf(untyped, absl::InfiniteFuture()).http().send().body(), untyped.body);
}

}  // namespace
}  // namespace agentrt::replay::internal
