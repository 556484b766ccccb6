#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace kb {

/// A list field of a record in 8 bytes, where std::vector takes 24: one pointer to a heap
/// block holding the size, the capacity and the elements; null when empty. A record
/// carries every namespace's lists and most are empty (31 of a loaded record's 38), so at
/// 100k records the difference is tens of MiB of a server's memory (bench/RESULTS.md,
/// round 9). It reads and grows like a std::vector (contiguous, iterators are pointers,
/// which growing invalidates), holds up to 2^32 - 1 elements, and, like std::vector, may
/// be declared with an incomplete element type (a predicate's children).
template <class T>
class Vec {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  Vec() noexcept = default;
  Vec(std::initializer_list<T> init) { append_copies(init.begin(), init.end()); }
  /// Takes a std::vector's elements (moved one by one).
  Vec(std::vector<T>&& v) {
    reserve(v.size());
    for (auto& x : v) emplace_back(std::move(x));
  }
  Vec(const std::vector<T>& v) { append_copies(v.data(), v.data() + v.size()); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  Vec(It first, It last) {
    for (; first != last; ++first) emplace_back(*first);
  }
  Vec(const Vec& o) { append_copies(o.begin(), o.end()); }
  Vec(Vec&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Vec& operator=(const Vec& o) {
    if (this != &o) {
      Vec t(o);
      swap(t);
    }
    return *this;
  }
  Vec& operator=(Vec&& o) noexcept {
    if (this != &o) {
      destroy();
      h_ = o.h_;
      o.h_ = nullptr;
    }
    return *this;
  }
  Vec& operator=(std::vector<T>&& v) {
    Vec t(std::move(v));
    swap(t);
    return *this;
  }
  Vec& operator=(std::initializer_list<T> init) {
    Vec t(init);
    swap(t);
    return *this;
  }
  ~Vec() { destroy(); }

  void swap(Vec& o) noexcept { std::swap(h_, o.h_); }
  friend void swap(Vec& a, Vec& b) noexcept { a.swap(b); }

  size_type size() const noexcept { return h_ ? h_->size : 0; }
  size_type capacity() const noexcept { return h_ ? h_->cap : 0; }
  bool empty() const noexcept { return size() == 0; }
  size_type max_size() const noexcept { return UINT32_MAX; }

  T* data() noexcept { return h_ ? elems() : nullptr; }
  const T* data() const noexcept { return h_ ? elems() : nullptr; }
  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size(); }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

  T& operator[](size_type i) noexcept { return elems()[i]; }
  const T& operator[](size_type i) const noexcept { return elems()[i]; }
  T& at(size_type i) {
    if (i >= size()) throw std::out_of_range("kb::Vec::at");
    return elems()[i];
  }
  const T& at(size_type i) const {
    if (i >= size()) throw std::out_of_range("kb::Vec::at");
    return elems()[i];
  }
  T& front() noexcept { return elems()[0]; }
  const T& front() const noexcept { return elems()[0]; }
  T& back() noexcept { return elems()[size() - 1]; }
  const T& back() const noexcept { return elems()[size() - 1]; }

  void reserve(size_type n) {
    if (n > capacity()) regrow(n);
  }
  void shrink_to_fit() {
    if (empty()) {
      destroy();
    } else if (size() < capacity()) {
      regrow(size());
    }
  }
  void clear() noexcept {
    if (!h_) return;
    std::destroy(elems(), elems() + h_->size);
    h_->size = 0;
  }

  template <class... A>
  T& emplace_back(A&&... args) {
    if (size() == capacity()) {
      // Built before growing: `args` may refer to an element of this list.
      T value(std::forward<A>(args)...);
      regrow(grown());
      return *::new (static_cast<void*>(elems() + h_->size++)) T(std::move(value));
    }
    T* at = ::new (static_cast<void*>(elems() + h_->size)) T(std::forward<A>(args)...);
    ++h_->size;
    return *at;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void pop_back() noexcept {
    std::destroy_at(elems() + h_->size - 1);
    --h_->size;
  }
  void resize(size_type n) {
    while (size() > n) pop_back();
    reserve(n);
    while (size() < n) emplace_back();
  }
  void resize(size_type n, const T& v) {
    while (size() > n) pop_back();
    if (size() < n) {
      T copy(v);
      reserve(n);
      while (size() < n) emplace_back(copy);
    }
  }
  template <class It>
  void assign(It first, It last) {
    Vec t(first, last);
    swap(t);
  }

  /// Inserts before `pos`; returns an iterator to the new element.
  iterator insert(const_iterator pos, const T& v) { return insert_at(pos - begin(), v); }
  iterator insert(const_iterator pos, T&& v) { return insert_at(pos - begin(), std::move(v)); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator pos, It first, It last) {
    size_type i = pos - begin();
    size_type old = size();
    Vec tail(first, last);  // the range may be this list's own elements
    reserve(old + tail.size());
    for (auto& x : tail) emplace_back(std::move(x));
    std::rotate(begin() + i, begin() + old, end());
    return begin() + i;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    size_type i = first - begin();
    size_type n = last - first;
    if (n == 0) return begin() + i;
    std::move(begin() + i + n, end(), begin() + i);
    for (size_type k = 0; k < n; ++k) pop_back();
    return begin() + i;
  }

  /// A std::vector with copies of the elements.
  std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const Vec& a, const Vec& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const Vec& a, const Vec& b) { return !(a == b); }
  friend bool operator<(const Vec& a, const Vec& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  struct Head {
    std::uint32_t size;
    std::uint32_t cap;
  };
  // Where the elements start in the block; only computed where T is complete.
  static constexpr std::size_t offset() {
    return (sizeof(Head) + alignof(T) - 1) / alignof(T) * alignof(T);
  }
  T* elems() const noexcept {
    return std::launder(reinterpret_cast<T*>(reinterpret_cast<char*>(h_) + offset()));
  }
  size_type grown() const {
    size_type c = capacity();
    if (c >= UINT32_MAX) throw std::length_error("kb::Vec: too many elements");
    return c == 0 ? 1 : std::min<size_type>(c * 2, UINT32_MAX);
  }
  template <class U>
  iterator insert_at(size_type i, U&& v) {
    emplace_back(std::forward<U>(v));
    std::rotate(begin() + i, end() - 1, end());
    return begin() + i;
  }
  template <class It>
  void append_copies(It first, It last) {
    reserve(static_cast<size_type>(std::distance(first, last)));
    for (; first != last; ++first) emplace_back(*first);
  }
  // Moves the elements into a block of capacity n (n >= size()).
  void regrow(size_type n) {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "over-aligned element");
    if (n > UINT32_MAX) throw std::length_error("kb::Vec: too many elements");
    auto* block = static_cast<Head*>(::operator new(offset() + n * sizeof(T)));
    block->size = 0;
    block->cap = static_cast<std::uint32_t>(n);
    T* to = std::launder(reinterpret_cast<T*>(reinterpret_cast<char*>(block) + offset()));
    size_type count = size();
    if (h_) {
      T* from = elems();
      size_type done = 0;
      try {
        for (; done < count; ++done)
          ::new (static_cast<void*>(to + done)) T(std::move_if_noexcept(from[done]));
      } catch (...) {
        std::destroy(to, to + done);
        ::operator delete(block);
        throw;
      }
      std::destroy(from, from + count);
      ::operator delete(h_);
    }
    block->size = static_cast<std::uint32_t>(count);
    h_ = block;
  }
  void destroy() noexcept {
    if (!h_) return;
    std::destroy(elems(), elems() + h_->size);
    ::operator delete(h_);
    h_ = nullptr;
  }

  Head* h_ = nullptr;
};

}  // namespace kb
