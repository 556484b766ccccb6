#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace kb {

/// An optional part of a record kept on the heap: most records lack it, and held inline
/// it would cost every record its whole size (at 100k records in memory, that is most of
/// a snapshot). Reads like std::optional; copies are deep.
template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}
  Boxed(T value) : p_(std::make_unique<T>(std::move(value))) {}
  Boxed(std::optional<T> value) {
    if (value) p_ = std::make_unique<T>(std::move(*value));
  }
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  /// Makes the part present (a default one when it was absent) and returns it.
  T& emplace() {
    p_ = std::make_unique<T>();
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

/// A part of a record that only records of one namespace have (an engine's packages, a
/// result's counts): one pointer in every other record instead of the part's whole size.
/// Reads as an empty part when absent; writing through a non-const record makes it
/// present. Copies are deep.
template <class T>
class Part {
 public:
  bool has_value() const { return p_.has_value(); }
  const T& operator*() const { return p_ ? *p_ : empty(); }
  const T* operator->() const { return &**this; }
  T& operator*() { return get(); }
  T* operator->() { return &get(); }
  /// Where a T is read, a part is one.
  operator const T&() const { return **this; }
  operator T&() { return get(); }
  /// Drops the part: it reads as empty again.
  void reset() { p_.reset(); }

 private:
  T& get() { return p_ ? *p_ : p_.emplace(); }
  static const T& empty() {
    static const T none;
    return none;
  }
  Boxed<T> p_;  ///< copies deep, as Boxed does
};

}  // namespace kb
