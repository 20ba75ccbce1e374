#include "runtime/schema/internal/uri.h"

#include "gtest/gtest.h"

namespace agentrt::schema {
namespace {

TEST(UriTest, ResolvesReferencesAsRfc3986Section5Does) {
  // RFC 3986 §5.4 examples against http://a/b/c/d;p?q.
  const char* base = "http://a/b/c/d;p?q";
  struct Row {
    const char* reference;
    const char* expected;
  } rows[] = {
      {"g", "http://a/b/c/g"},
      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},
      {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"},
      {"#s", "http://a/b/c/d;p?q#s"},
      {"", "http://a/b/c/d;p?q"},
      {"../g", "http://a/b/g"},
      {"../../g", "http://a/g"},
      {"../../../g", "http://a/g"},
      {"g;x=1/../y", "http://a/b/c/y"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.reference);
    EXPECT_EQ(ResolveUri(base, row.reference), row.expected);
  }
}

TEST(UriTest, NonHierarchicalBasesAndEmptyBases) {
  EXPECT_EQ(ResolveUri("urn:uuid:1234", "#/$defs/a"), "urn:uuid:1234#/$defs/a");
  EXPECT_EQ(ResolveUri("", "#/a"), "#/a");
  EXPECT_EQ(ResolveUri("", "http://x/y"), "http://x/y");
  EXPECT_EQ(ResolveUri("http://x/y/z.json", "urn:other"), "urn:other");
}

TEST(UriTest, SplitsFragmentsAndDecodesPercentEscapes) {
  UriParts parts = SplitFragment("http://x/y#/a%25b");
  EXPECT_EQ(parts.without_fragment, "http://x/y");
  EXPECT_EQ(parts.fragment, "/a%25b");
  EXPECT_TRUE(parts.has_fragment);
  EXPECT_EQ(PercentDecode(parts.fragment), "/a%b");
  EXPECT_EQ(PercentDecode("%zz%4"), "%zz%4");
  EXPECT_FALSE(SplitFragment("http://x").has_fragment);
}

}  // namespace
}  // namespace agentrt::schema
