#include "extension/io/iri_reference.h"

#include <optional>

namespace datalog::ext::io {

namespace {

// The five parts of a reference (RFC 3986, appendix B); an absent part is nullopt, which is not
// the same as an empty one ("http://h?" has an empty query).
struct Parts {
  std::optional<std::string_view> scheme, authority, query, fragment;
  std::string_view path;
};

Parts split(std::string_view s) {
  Parts p;
  if (has_scheme(s)) {
    const std::size_t colon = s.find(':');
    p.scheme = s.substr(0, colon);
    s.remove_prefix(colon + 1);
  }
  if (const std::size_t hash = s.find('#'); hash != std::string_view::npos) {
    p.fragment = s.substr(hash + 1);
    s = s.substr(0, hash);
  }
  if (const std::size_t q = s.find('?'); q != std::string_view::npos) {
    p.query = s.substr(q + 1);
    s = s.substr(0, q);
  }
  if (s.substr(0, 2) == "//") {
    const std::size_t end = s.find('/', 2);
    p.authority = s.substr(2, end == std::string_view::npos ? s.size() - 2 : end - 2);
    s = end == std::string_view::npos ? std::string_view() : s.substr(end);
  }
  p.path = s;
  return p;
}

// RFC 3986 section 5.2.4: "." and ".." segments taken out of a path.
std::string remove_dot_segments(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.substr(0, 3) == "../") {
      in.remove_prefix(3);
    } else if (in.substr(0, 2) == "./") {
      in.remove_prefix(2);
    } else if (in.substr(0, 3) == "/./") {
      in.remove_prefix(2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.substr(0, 4) == "/../" || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      const std::size_t last = out.rfind('/');
      out.erase(last == std::string::npos ? 0 : last);
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      // The first segment, with its leading '/', moves to the output.
      const std::size_t next = in.find('/', in[0] == '/' ? 1 : 0);
      const std::size_t n = next == std::string_view::npos ? in.size() : next;
      out.append(in.substr(0, n));
      in.remove_prefix(n);
    }
  }
  return out;
}

// RFC 3986 section 5.2.3: a relative path joined to the base's directory.
std::string merge(const Parts& base, std::string_view path) {
  if (base.authority && base.path.empty()) return "/" + std::string(path);
  const std::size_t slash = base.path.rfind('/');
  if (slash == std::string_view::npos) return std::string(path);
  return std::string(base.path.substr(0, slash + 1)) + std::string(path);
}

std::string join(const Parts& p, const std::string& path) {
  std::string out;
  if (p.scheme) out.append(*p.scheme).append(":");
  if (p.authority) out.append("//").append(*p.authority);
  out += path;
  if (p.query) out.append("?").append(*p.query);
  if (p.fragment) out.append("#").append(*p.fragment);
  return out;
}

}  // namespace

bool has_scheme(std::string_view s) {
  // ASCII by hand: std::isalpha and std::isalnum consult the locale, a call per character.
  const auto is_alpha = [](unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; };
  if (s.empty() || !is_alpha(static_cast<unsigned char>(s[0]))) return false;
  for (std::size_t i = 1; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == ':') return true;
    if (!is_alpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

bool resolves_to_itself(std::string_view reference) {
  return has_scheme(reference) && reference.find("/.") == std::string_view::npos &&
         reference.find(":.") == std::string_view::npos;
}

std::string resolve_iri(std::string_view base_text, std::string_view reference) {
  // The usual case, an absolute IRI without dot segments (every IRI of N-Triples), as it is.
  if (resolves_to_itself(reference)) return std::string(reference);
  const Parts ref = split(reference);
  if (ref.scheme) return join(ref, remove_dot_segments(ref.path));
  if (base_text.empty()) return std::string(reference);
  const Parts base = split(base_text);
  Parts t;
  std::string path;
  t.scheme = base.scheme;
  t.fragment = ref.fragment;
  if (ref.authority) {
    t.authority = ref.authority;
    path = remove_dot_segments(ref.path);
    t.query = ref.query;
  } else {
    t.authority = base.authority;
    if (ref.path.empty()) {
      path = std::string(base.path);
      t.query = ref.query ? ref.query : base.query;
    } else {
      path = remove_dot_segments(ref.path[0] == '/' ? std::string(ref.path) : merge(base, ref.path));
      t.query = ref.query;
    }
  }
  return join(t, path);
}

}  // namespace datalog::ext::io
