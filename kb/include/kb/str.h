#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace kb {

/// A string field of a record in 16 bytes, where std::string takes 32: up to 15 bytes
/// inline (the usual dates, versions, short ids), longer text on the heap. A loaded
/// corpus holds ~73 strings a record, half of them empty (the fields of other
/// namespaces), so at 100k records the difference is ~110 MiB of a server's memory
/// (bench/RESULTS.md, round 8). It reads like a std::string_view, converts to
/// std::string, and is always NUL-terminated. Taking `const std::string&` of one makes a
/// temporary: never keep a pointer or view of that past the call.
class Str {
 public:
  static constexpr std::size_t npos = std::string_view::npos;

  Str() noexcept { set_empty(); }
  Str(std::string_view s) { init(s); }
  Str(const std::string& s) { init(s); }
  Str(const char* s) { init(std::string_view(s)); }
  Str(const char* s, std::size_t n) { init(std::string_view(s, n)); }
  Str(const Str& o) { init(o.view()); }
  Str(Str&& o) noexcept {
    std::memcpy(b_, o.b_, sizeof b_);
    o.set_empty();
  }
  Str& operator=(const Str& o) {
    if (this != &o) assign(o.view());
    return *this;
  }
  Str& operator=(Str&& o) noexcept {
    if (this != &o) {
      release();
      std::memcpy(b_, o.b_, sizeof b_);
      o.set_empty();
    }
    return *this;
  }
  Str& operator=(std::string_view s) { return assign(s); }
  Str& operator=(const std::string& s) { return assign(s); }
  Str& operator=(const char* s) { return assign(std::string_view(s)); }
  ~Str() { release(); }

  Str& assign(std::string_view s) {
    Str t(s);
    swap(t);
    return *this;
  }
  void swap(Str& o) noexcept {
    unsigned char tmp[sizeof b_];
    std::memcpy(tmp, b_, sizeof b_);
    std::memcpy(b_, o.b_, sizeof b_);
    std::memcpy(o.b_, tmp, sizeof b_);
  }
  void clear() noexcept {
    release();
    set_empty();
  }

  const char* data() const noexcept {
    return on_heap() ? heap_ptr() : reinterpret_cast<const char*>(b_);
  }
  const char* c_str() const noexcept { return data(); }
  std::size_t size() const noexcept { return on_heap() ? heap_size() : kInline - b_[kInline]; }
  std::size_t length() const noexcept { return size(); }
  bool empty() const noexcept { return size() == 0; }
  const char* begin() const noexcept { return data(); }
  const char* end() const noexcept { return data() + size(); }
  char front() const { return data()[0]; }
  char back() const { return data()[size() - 1]; }
  char operator[](std::size_t i) const { return data()[i]; }

  std::string_view view() const noexcept { return {data(), size()}; }
  operator std::string_view() const noexcept { return view(); }
  std::string str() const { return std::string(view()); }
  operator std::string() const { return str(); }

  std::size_t find(std::string_view s, std::size_t pos = 0) const noexcept {
    return view().find(s, pos);
  }
  std::size_t find(char c, std::size_t pos = 0) const noexcept { return view().find(c, pos); }
  std::size_t rfind(std::string_view s, std::size_t pos = npos) const noexcept {
    return view().rfind(s, pos);
  }
  std::size_t rfind(char c, std::size_t pos = npos) const noexcept { return view().rfind(c, pos); }
  std::size_t find_first_of(std::string_view s, std::size_t pos = 0) const noexcept {
    return view().find_first_of(s, pos);
  }
  std::size_t find_first_not_of(std::string_view s, std::size_t pos = 0) const noexcept {
    return view().find_first_not_of(s, pos);
  }
  std::string substr(std::size_t pos, std::size_t n = npos) const {
    return std::string(view().substr(pos, n));
  }
  bool starts_with(std::string_view s) const noexcept { return view().starts_with(s); }
  bool starts_with(char c) const noexcept { return view().starts_with(c); }
  bool ends_with(std::string_view s) const noexcept { return view().ends_with(s); }
  bool ends_with(char c) const noexcept { return view().ends_with(c); }
  int compare(std::string_view s) const noexcept { return view().compare(s); }

  Str& operator+=(std::string_view s) {
    std::string joined(view());
    joined += s;
    return assign(joined);
  }
  Str& operator+=(char c) { return *this += std::string_view(&c, 1); }

  friend bool operator==(const Str& a, const Str& b) noexcept { return a.view() == b.view(); }
  friend bool operator==(const Str& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const Str& a, const std::string& b) noexcept { return a.view() == b; }
  friend bool operator==(const Str& a, const char* b) noexcept { return a.view() == b; }
  friend auto operator<=>(const Str& a, const Str& b) noexcept { return a.view() <=> b.view(); }
  friend auto operator<=>(const Str& a, std::string_view b) noexcept { return a.view() <=> b; }
  friend auto operator<=>(const Str& a, const std::string& b) noexcept {
    return a.view() <=> std::string_view(b);
  }
  friend auto operator<=>(const Str& a, const char* b) noexcept {
    return a.view() <=> std::string_view(b);
  }

  friend std::string operator+(const Str& a, std::string_view b) { return join(a.view(), b); }
  friend std::string operator+(std::string_view a, const Str& b) { return join(a, b.view()); }
  friend std::string operator+(const Str& a, const Str& b) { return join(a.view(), b.view()); }
  friend std::string operator+(const Str& a, const std::string& b) { return join(a.view(), b); }
  friend std::string operator+(const std::string& a, const Str& b) { return join(a, b.view()); }
  friend std::string operator+(const Str& a, const char* b) { return join(a.view(), b); }
  friend std::string operator+(const char* a, const Str& b) { return join(a, b.view()); }
  friend std::string operator+(const Str& a, char b) {
    return join(a.view(), std::string_view(&b, 1));
  }
  friend std::string operator+(char a, const Str& b) {
    return join(std::string_view(&a, 1), b.view());
  }
  friend std::string operator+(std::string&& a, const Str& b) {
    return std::move(a.append(b.view()));
  }

  friend std::ostream& operator<<(std::ostream& os, const Str& t) { return os << t.view(); }

 private:
  static constexpr std::size_t kInline = 15;
  static constexpr unsigned char kHeapTag = 0x80;

  static std::string join(std::string_view a, std::string_view b) {
    std::string out;
    out.reserve(a.size() + b.size());
    out.append(a).append(b);
    return out;
  }
  bool on_heap() const noexcept { return b_[kInline] == kHeapTag; }
  const char* heap_ptr() const noexcept {
    const char* p;
    std::memcpy(&p, b_, sizeof p);
    return p;
  }
  std::size_t heap_size() const noexcept {
    std::uint64_t n;
    std::memcpy(&n, b_ + 8, sizeof n);
    return static_cast<std::size_t>(n & 0x00FFFFFFFFFFFFFFull);
  }
  void set_empty() noexcept {
    std::memset(b_, 0, sizeof b_);
    b_[kInline] = kInline;  // 15 - 0 bytes: an empty inline string, NUL-terminated
  }
  void init(std::string_view s) {
    if (s.size() <= kInline) {
      std::memset(b_, 0, sizeof b_);
      if (!s.empty()) std::memcpy(b_, s.data(), s.size());
      // When 15 bytes are used, this byte is 0 and terminates the string.
      b_[kInline] = static_cast<unsigned char>(kInline - s.size());
      return;
    }
    char* p = new char[s.size() + 1];
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = '\0';
    std::memcpy(b_, &p, sizeof p);
    const std::uint64_t n = static_cast<std::uint64_t>(s.size()) | (std::uint64_t{kHeapTag} << 56);
    std::memcpy(b_ + 8, &n, sizeof n);
  }
  void release() noexcept {
    if (on_heap()) delete[] heap_ptr();
  }

  alignas(8) unsigned char b_[16];
};

static_assert(sizeof(Str) == 16);

}  // namespace kb

template <>
struct std::hash<kb::Str> {
  std::size_t operator()(const kb::Str& t) const noexcept {
    return std::hash<std::string_view>{}(t.view());
  }
};
