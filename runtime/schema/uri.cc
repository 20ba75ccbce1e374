#include "runtime/schema/internal/uri.h"

#include <optional>

namespace agentrt::schema {
namespace {

struct Parsed {
  std::optional<std::string_view> scheme, authority, query, fragment;
  std::string_view path;
};

Parsed Parse(std::string_view s) {
  Parsed p;
  if (std::size_t hash = s.find('#'); hash != std::string_view::npos) {
    p.fragment = s.substr(hash + 1);
    s = s.substr(0, hash);
  }
  if (std::size_t q = s.find('?'); q != std::string_view::npos) {
    p.query = s.substr(q + 1);
    s = s.substr(0, q);
  }
  // A scheme is letters, digits, + - . before the first ':' and before any '/'.
  std::size_t colon = s.find(':');
  if (colon != std::string_view::npos && colon > 0 &&
      s.substr(0, colon).find('/') == std::string_view::npos) {
    bool ok = true;
    for (std::size_t i = 0; i < colon; ++i) {
      char c = s[i];
      bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      if (!(alpha || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')))) {
        ok = false;
      }
    }
    if (ok) {
      p.scheme = s.substr(0, colon);
      s = s.substr(colon + 1);
    }
  }
  if (s.starts_with("//")) {
    s.remove_prefix(2);
    std::size_t slash = s.find('/');
    p.authority = s.substr(0, slash);
    s = slash == std::string_view::npos ? std::string_view() : s.substr(slash);
  }
  p.path = s;
  return p;
}

std::string RemoveDotSegments(std::string_view input) {
  std::string in(input), out;
  while (!in.empty()) {
    if (in.starts_with("../")) {
      in.erase(0, 3);
    } else if (in.starts_with("./")) {
      in.erase(0, 2);
    } else if (in.starts_with("/./")) {
      in.erase(0, 2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.starts_with("/../") || in == "/..") {
      in = in == "/.." ? "/" : in.substr(3);
      std::size_t last = out.rfind('/');
      out.erase(last == std::string::npos ? 0 : last);
    } else if (in == "." || in == "..") {
      in.clear();
    } else {
      std::size_t next = in.find('/', in[0] == '/' ? 1 : 0);
      out += in.substr(0, next);
      in.erase(0, next == std::string::npos ? in.size() : next);
    }
  }
  return out;
}

std::string Merge(const Parsed& base, std::string_view path) {
  if (base.authority && base.path.empty()) return "/" + std::string(path);
  std::size_t slash = base.path.rfind('/');
  if (slash == std::string_view::npos) return std::string(path);
  return std::string(base.path.substr(0, slash + 1)) + std::string(path);
}

std::string Compose(const Parsed& p, const std::string& path) {
  std::string out;
  if (p.scheme) out += std::string(*p.scheme) + ":";
  if (p.authority) out += "//" + std::string(*p.authority);
  out += path;
  if (p.query) out += "?" + std::string(*p.query);
  if (p.fragment) out += "#" + std::string(*p.fragment);
  return out;
}

}  // namespace

std::string ResolveUri(std::string_view base, std::string_view reference) {
  Parsed r = Parse(reference);
  Parsed b = Parse(base);
  Parsed t;
  std::string path;
  if (r.scheme) {
    t = r;
    path = RemoveDotSegments(r.path);
  } else {
    if (r.authority) {
      t.authority = r.authority;
      path = RemoveDotSegments(r.path);
      t.query = r.query;
    } else {
      if (r.path.empty()) {
        path = std::string(b.path);
        t.query = r.query ? r.query : b.query;
      } else {
        if (r.path.starts_with("/")) {
          path = RemoveDotSegments(r.path);
        } else {
          // A non-hierarchical base (urn:..., tag:...) has no path to merge into: the
          // reference replaces everything after the scheme.
          path = (b.scheme && !b.authority && !b.path.starts_with("/"))
                     ? std::string(r.path)
                     : RemoveDotSegments(Merge(b, r.path));
        }
        t.query = r.query;
      }
      t.authority = b.authority;
    }
    t.scheme = b.scheme;
  }
  t.fragment = r.fragment;
  return Compose(t, path);
}

UriParts SplitFragment(std::string_view uri) {
  UriParts parts;
  std::size_t hash = uri.find('#');
  if (hash == std::string_view::npos) {
    parts.without_fragment = std::string(uri);
  } else {
    parts.without_fragment = std::string(uri.substr(0, hash));
    parts.fragment = std::string(uri.substr(hash + 1));
    parts.has_fragment = true;
  }
  return parts;
}

std::string PercentDecode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace agentrt::schema
