// Absolute http(s) URLs split without asking anyone (runtime/world/url.h): every part, an IPv6
// literal, the origin two URLs share whatever their case and default port, errors that never
// show what stood before the host, and a redirect named by its host alone. ParseBaseUrl,
// UrlHost and IsLoopbackHost are pinned in tests/providers/endpoint_test.cc.
#include "runtime/world/url.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::world {
namespace {

using ::testing::Field;

TEST(ParseUrlTest, SplitsSchemeHostPortPathQueryAndFragment) {
  absl::StatusOr<Url> url = ParseUrl("HTTPS://Api.Example.com:8443/v1/items?q=a%20b&x=1#sec-2");

  ASSERT_OK(url);
  EXPECT_EQ(url->scheme, "https");
  EXPECT_FALSE(url->user_info);
  EXPECT_EQ(url->host, "Api.Example.com");  // as written: Origin lowercases
  EXPECT_EQ(url->port, "8443");
  EXPECT_EQ(url->path, "/v1/items");
  EXPECT_TRUE(url->has_query);
  EXPECT_EQ(url->query, "q=a%20b&x=1");
  EXPECT_TRUE(url->has_fragment);
  EXPECT_EQ(url->fragment, "sec-2");
}

TEST(ParseUrlTest, AnEmptyQueryOrFragmentIsToldFromAnAbsentOne) {
  struct Row {
    const char* url;
    std::string path;
    bool has_query;
    std::string query;
    bool has_fragment;
    std::string fragment;
  };
  for (const Row& row : {
           Row{"http://h", "", false, "", false, ""},
           Row{"http://h/", "/", false, "", false, ""},
           Row{"http://h?", "", true, "", false, ""},
           Row{"http://h#", "", false, "", true, ""},
           Row{"http://h?a=1#b", "", true, "a=1", true, "b"},
           // After '#' everything is the fragment, a '?' too.
           Row{"http://h/p#f?not=query", "/p", false, "", true, "f?not=query"},
           Row{"http://h/p/?q=/x?y#f#g", "/p/", true, "q=/x?y", true, "f#g"},
       }) {
    SCOPED_TRACE(row.url);
    absl::StatusOr<Url> url = ParseUrl(row.url);
    ASSERT_OK(url);
    EXPECT_EQ(url->host, "h");
    EXPECT_EQ(url->path, row.path);
    EXPECT_EQ(url->has_query, row.has_query);
    EXPECT_EQ(url->query, row.query);
    EXPECT_EQ(url->has_fragment, row.has_fragment);
    EXPECT_EQ(url->fragment, row.fragment);
  }
}

TEST(ParseUrlTest, TakesAnIpv6LiteralWithoutItsBracketsAndItsPort) {
  EXPECT_THAT(ParseUrl("https://[2001:DB8::1]:8443/x?y"),
              IsOkAndHolds(AllOf(Field(&Url::host, "2001:DB8::1"), Field(&Url::port, "8443"),
                                 Field(&Url::path, "/x"), Field(&Url::query, "y"))));
  EXPECT_THAT(ParseUrl("http://[::1]/mcp"),
              IsOkAndHolds(AllOf(Field(&Url::host, "::1"), Field(&Url::port, ""),
                                 Field(&Url::path, "/mcp"))));
  EXPECT_THAT(ParseUrl("http://[::1]"), IsOkAndHolds(Field(&Url::host, "::1")));
}

TEST(ParseUrlTest, FlagsUserInformationAndKeepsNoneOfIt) {
  absl::StatusOr<Url> url = ParseUrl("https://alice:pw-s3cret@Host.example:8443/p?q#f");

  ASSERT_OK(url);
  EXPECT_TRUE(url->user_info);
  EXPECT_EQ(url->host, "Host.example");
  EXPECT_EQ(url->port, "8443");
  EXPECT_EQ(url->Text(), "https://host.example:8443/p?q#f");
  // A password holding '@' ends at the last one before the host.
  EXPECT_THAT(ParseUrl("http://u:p@ss@h/"),
              IsOkAndHolds(AllOf(Field(&Url::user_info, true), Field(&Url::host, "h"))));
}

TEST(ParseUrlTest, RefusesWhatIsNotAnAbsoluteHttpUrlSayingWhy) {
  struct Row {
    const char* url;
    std::string error;
  };
  for (const Row& row : {
           Row{"", R"("" is not an http or https URL)"},
           Row{"host.example/path", R"("host.example/path" is not an http or https URL)"},
           Row{"ftp://h/", R"("ftp://h/" is not an http or https URL)"},
           Row{"mailto://h", R"("mailto://h" is not an http or https URL)"},
           Row{"http://", R"("http://" has no host)"},
           Row{"http:///p", R"("http:///p" has no host)"},
           Row{"https://:443/", R"("https://:443/" has no host)"},
           Row{"http://?q", R"("http://?q" has no host)"},
           Row{"http://[::1/", R"("http://[::1/" has no host)"},
           Row{"http://[::1]x/", R"("http://[::1]x/" has no host)"},
           Row{"http://[]:80/", R"("http://[]:80/" has no host)"},
           Row{"http://h:8o/", R"("http://h:8o/" has a port that is not a number from 0 to 65535)"},
           Row{"http://h:-1", R"("http://h:-1" has a port that is not a number from 0 to 65535)"},
           Row{"http://[::1]:x",
               R"("http://[::1]:x" has a port that is not a number from 0 to 65535)"},
           Row{"http://h:70000",
               R"("http://h:70000" has a port that is not a number from 0 to 65535)"},
           Row{"http://a:b:80/", R"("http://a:b:80/" has a host with a ':' outside brackets)"},
       }) {
    SCOPED_TRACE(row.url);
    EXPECT_THAT(ParseUrl(row.url), StatusIs(absl::StatusCode::kInvalidArgument, row.error));
  }
}

TEST(ParseUrlTest, AnErrorNeverShowsWhatStoodBeforeTheHost) {
  for (const char* url : {
           "ftp://alice:pw-S3cret@h/",
           "https://alice:pw-S3cret@:443/",
           "https://alice:pw-S3cret@h:port/",
           "https://alice:pw-S3cret@[::1/",
           "https://alice:p@ss-S3cret@h:x",
           "alice:pw-S3cret@h",
       }) {
    SCOPED_TRACE(url);
    EXPECT_THAT(ParseUrl(url), StatusIs(absl::StatusCode::kInvalidArgument,
                                        AllOf(Not(HasSubstr("S3cret")), Not(HasSubstr("alice")))));
  }
  EXPECT_THAT(ParseUrl("https://alice:pw-S3cret@h:port/"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       R"("h:port/" has a port that is not a number from 0 to 65535)"));
}

std::string OriginOf(const char* url) {
  absl::StatusOr<Url> parsed = ParseUrl(url);
  EXPECT_OK(parsed) << url;
  return parsed.ok() ? parsed->Origin() : "";
}

TEST(UrlOriginTest, LowercasesTheHostAndDropsTheSchemesDefaultPort) {
  EXPECT_EQ(OriginOf("https://H:443"), OriginOf("https://h"));
  EXPECT_EQ(OriginOf("https://H:443"), "https://h");
  EXPECT_EQ(OriginOf("HTTPS://Auth.EXAMPLE.com:443/authorize?x=1#y"), "https://auth.example.com");
  EXPECT_EQ(OriginOf("http://h:80/p"), "http://h");
  EXPECT_EQ(OriginOf("https://user:pw@h/"), "https://h");
  // Another port, or the other scheme's default, is another origin.
  EXPECT_EQ(OriginOf("https://h:8443"), "https://h:8443");
  EXPECT_EQ(OriginOf("https://h:80"), "https://h:80");
  EXPECT_EQ(OriginOf("http://h:443"), "http://h:443");
  EXPECT_NE(OriginOf("http://h"), OriginOf("https://h"));
  // An IPv6 literal is bracketed again, lowercased too.
  EXPECT_EQ(OriginOf("http://[::1]:80/x"), "http://[::1]");
  EXPECT_EQ(OriginOf("https://[2001:DB8::A]:8443"), "https://[2001:db8::a]:8443");
}

TEST(UrlTextTest, IsTheOriginThenThePathQueryAndFragmentAsWritten) {
  absl::StatusOr<Url> url = ParseUrl("HTTPS://Example.COM:443/Path/?Q=1&r=%2F#Frag");
  ASSERT_OK(url);
  EXPECT_EQ(url->Text(), "https://example.com/Path/?Q=1&r=%2F#Frag");
  for (const char* text : {"http://h", "http://h?", "http://h#", "http://h:8080/a?#",
                           "https://[::1]:8443/cb?code=x"}) {
    SCOPED_TRACE(text);
    absl::StatusOr<Url> same = ParseUrl(text);
    ASSERT_OK(same);
    EXPECT_EQ(same->Text(), text);
  }
}

// ---- RedirectNote ----

TEST(RedirectNoteTest, NamesWhereARedirectPointedByHostAlone) {
  constexpr char kToHost[] = R"(redirects are not followed; the response pointed to host ")";
  constexpr char kSameHost[] =
      "redirects are not followed; the response pointed elsewhere on the same host";
  struct Row {
    const char* location;
    std::string note;
  };
  for (const Row& row : {
           Row{"https://alice:pw@evil.example:8443/cb?code=c0de-S3cret#frag",
               std::string(kToHost) + "evil.example\""},
           Row{"//evil.example/cb?code=c0de-S3cret", std::string(kToHost) + "evil.example\""},
           Row{"  HTTP://Evil.Example/cb?code=c0de-S3cret \t",
               std::string(kToHost) + "Evil.Example\""},
           Row{"http://[::1]:9/cb?code=c0de-S3cret", std::string(kToHost) + "::1\""},
           Row{"/cb?code=c0de-S3cret", kSameHost},
           Row{"cb?code=c0de-S3cret", kSameHost},
           Row{"ftp://evil.example/cb?code=c0de-S3cret",
               "redirects are not followed; the Location header does not parse"},
           Row{"https:///cb?code=c0de-S3cret",
               "redirects are not followed; the Location header does not parse"},
       }) {
    SCOPED_TRACE(row.location);
    std::string note = RedirectNote({{"Content-Type", "text/html"}, {"location", row.location}});
    EXPECT_EQ(note, row.note);
    EXPECT_THAT(note, AllOf(Not(HasSubstr("S3cret")), Not(HasSubstr("cb")), Not(HasSubstr("pw"))));
  }
  EXPECT_EQ(RedirectNote({}), "redirects are not followed");
}

TEST(RedirectNoteTest, AHostChosenByTheServerIsShownSanitized) {
  std::string note = RedirectNote({{"Location", "https://evil\x1b[2J.example/x"}});
  EXPECT_THAT(note, StartsWith(R"(redirects are not followed; the response pointed to host ")"));
  EXPECT_EQ(note.find('\x1b'), std::string::npos) << note;
}

}  // namespace
}  // namespace agentrt::world
