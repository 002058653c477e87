#pragma once
// InlineVector<T, N>: a vector that keeps up to N elements inside itself and moves them to the
// heap beyond, for small values made and dropped by the million (Region, iteration_space.h).
// The subset of std::vector's interface the suite uses; T must be trivially copyable (elements
// are moved with memcpy), and a moved-from vector is empty. (Boost's small_vector does the same
// but trips GCC 12's -Wstringop-overread in its move constructor.)
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>

namespace dgs {

template <class T, std::size_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "InlineVector moves its elements with memcpy");
  static_assert(N > 0);

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

  InlineVector() = default;
  explicit InlineVector(size_type n) { resize(n); }
  InlineVector(size_type n, const T& v) { resize(n, v); }
  InlineVector(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  InlineVector(It first, It last) {
    assign(first, last);
  }
  InlineVector(const InlineVector& o) { assign(o.begin(), o.end()); }
  InlineVector(InlineVector&& o) noexcept { take(o); }
  InlineVector& operator=(const InlineVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  InlineVector& operator=(InlineVector&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  InlineVector& operator=(std::initializer_list<T> l) {
    assign(l.begin(), l.end());
    return *this;
  }
  ~InlineVector() { release(); }

  template <class It>
  void assign(It first, It last) {
    if constexpr (std::is_same_v<It, T*> || std::is_same_v<It, const T*>) {
      const size_type n = static_cast<size_type>(last - first);
      clear();
      reserve(n);
      if (n > 0) std::memmove(static_cast<void*>(data_), first, n * sizeof(T));
      size_ = n;
      return;
    }
    clear();
    if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                    typename std::iterator_traits<It>::iterator_category>)
      reserve(static_cast<size_type>(std::distance(first, last)));
    for (; first != last; ++first) push_back(*first);
  }

  void assign(size_type n, const T& v) {
    const T copy = v;  // `v` may be an element of this vector
    clear();
    resize(n, copy);
  }

  size_type size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_type capacity() const { return cap_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }
  T& operator[](size_type i) { return data_[i]; }
  const T& operator[](size_type i) const { return data_[i]; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void reserve(size_type n) {
    if (n <= cap_) return;
    T* heap = static_cast<T*>(::operator new(n * sizeof(T)));
    const size_type size = size_;
    if (size > 0) std::memcpy(static_cast<void*>(heap), data_, size * sizeof(T));
    release();
    data_ = heap;
    cap_ = n;
    size_ = size;
  }
  void clear() { size_ = 0; }
  void push_back(const T& v) {
    if (size_ == cap_) {
      const T copy = v;  // `v` may be an element of this vector
      reserve(2 * cap_);
      ::new (static_cast<void*>(data_ + size_++)) T(copy);
      return;
    }
    ::new (static_cast<void*>(data_ + size_++)) T(v);
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    push_back(T{std::forward<Args>(args)...});
    return back();
  }
  void pop_back() { --size_; }
  void resize(size_type n) { resize(n, T{}); }
  void resize(size_type n, const T& v) {
    const T copy = v;
    reserve(n);
    for (size_type i = size_; i < n; ++i) ::new (static_cast<void*>(data_ + i)) T(copy);
    size_ = n;
  }

  friend bool operator==(const InlineVector& a, const InlineVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  T* inline_data() { return reinterpret_cast<T*>(storage_); }
  // Frees the heap block, if any, and returns to the (empty) inline storage.
  void release() {
    if (data_ != inline_data()) ::operator delete(data_);
    data_ = inline_data();
    cap_ = N;
    size_ = 0;
  }
  // Takes `o`'s elements (its heap block, or a copy of its inline ones), leaving it empty. This
  // vector must be empty and inline.
  void take(InlineVector& o) {
    if (o.data_ != o.inline_data()) {
      data_ = o.data_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.data_ = o.inline_data();
      o.cap_ = N;
    } else {
      std::memcpy(storage_, o.storage_, o.size_ * sizeof(T));
      size_ = o.size_;
    }
    o.size_ = 0;
  }

  T* data_ = inline_data();
  size_type size_ = 0;
  size_type cap_ = N;
  alignas(T) unsigned char storage_[N * sizeof(T)];
};

}  // namespace dgs
