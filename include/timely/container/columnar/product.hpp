/// \file
/// Columns of composite items: `std::optional<T>` (a buffer of tags, 0 or 1, plus a column of
/// the values with an empty or zero slot for each absent one, so that item `i` is slot `i`),
/// and products: `std::pair`, `std::tuple` and aggregates through Boost.PFR (one column per
/// field; borrowed as a `std::tuple` of the fields' borrowed types). Part of the columnar
/// container family (timely/container/columnar.hpp; the column protocol is in kinds.hpp).
/// Thread-safety: plain values.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/pfr/core.hpp>

#include <timely/container/columnar/kinds.hpp>
#include <timely/container/columnar/layout.hpp>
#include <timely/container/columnar/storage.hpp>

namespace timely::container::columnar::detail {

/// `std::optional<E>`: tags (0 absent, 1 present), then the column of `E` with one slot per
/// item; an absent item's slot holds the empty or zero value (checked when read, so that a
/// valid batch has one encoding).
template <class E>
struct Col<std::optional<E>, Kind::optional> {
  using Some = Col<E>;
  using Ref = std::optional<typename Some::Ref>;
  static constexpr std::size_t buffers = 1 + Some::buffers;

  struct View {
    const unsigned char* tags = nullptr;
    std::size_t len = 0;
    typename Some::View some{};
    [[nodiscard]] Ref get(std::size_t i) const {
      if (tags[i] != 0) return Ref(std::in_place, some.get(i));
      return std::nullopt;
    }
    [[nodiscard]] bool is_default(std::size_t i) const noexcept { return tags[i] == 0; }
    void collect(Bytes*& out) const noexcept {
      *out++ = Bytes{tags, len};
      some.collect(out);
    }
    [[nodiscard]] std::size_t padded_bytes() const noexcept { return pad8(len) + some.padded_bytes(); }
  };

  struct Owned {
    Storage<unsigned char> tags;
    typename Some::Owned some;
    void push(const std::optional<E>& v) {
      if (v) {
        some.push(*v);
      } else {
        some.push_default();
      }
      tags.push_back(v ? 1 : 0);
    }
    void push_ref(const Ref& r) {
      if (r) {
        some.push_ref(*r);
      } else {
        some.push_default();
      }
      tags.push_back(r ? 1 : 0);
    }
    void push_default() {
      some.push_default();
      tags.push_back(0);
    }
    void gather(const View& src, const std::uint32_t* index, std::size_t n) {
      some.gather(src.some, index, n);
      unsigned char* out = tags.append_uninitialized(n);
      for (std::size_t k = 0; k < n; ++k) out[k] = src.tags[index[k]];
    }
    void clear() noexcept { tags.clear(), some.clear(); }
    void expect_bytes(const std::size_t*& sizes) noexcept {
      tags.expect(*sizes++);
      some.expect_bytes(sizes);
    }
    void truncate(std::size_t len) noexcept {
      tags.truncate(len);
      some.truncate(len);
    }
    [[nodiscard]] View view() const noexcept { return View{tags.data(), tags.size(), some.view()}; }
  };

  static View parse(Parser& p, std::size_t len, const Path& path) {
    const Buffer tags = p.next();
    check_flags(tags, len, path, "tags");
    const Path child{&path, "some"};
    View v{tags.data, len, Some::parse(p, len, child)};
    for (std::size_t i = 0; i < len; ++i)
      if (tags.data[i] == 0 && !v.some.is_default(i)) [[unlikely]]
        fail(path, "tags", tags.offset + i,
             "item " + std::to_string(i) + " is absent but its slot in column " + child.render(nullptr) +
                 " is not empty");
    return v;
  }
  static std::optional<E> to_owned(const Ref& r) {
    if (r) return std::optional<E>(Some::to_owned(*r));
    return std::nullopt;
  }
  static bool equal(const Ref& a, const Ref& b) {
    return a.has_value() == b.has_value() && (!a || Some::equal(*a, *b));
  }
  static std::string name() { return "optional<" + Some::name() + ">"; }
  static void names(const Path& path, std::vector<std::string>& out) {
    out.push_back(path.render("tags"));
    Some::names(Path{&path, "some"}, out);
  }
};

/// One column per field type `F...`; `label` names the fields in paths ("tuple.1").
template <const char* label, class... F>
struct Product {
  using Ref = std::tuple<typename Col<F>::Ref...>;
  static constexpr std::size_t buffers = (std::size_t{0} + ... + Col<F>::buffers);
  static constexpr std::size_t arity = sizeof...(F);
  using Seq = std::make_index_sequence<arity>;
  template <std::size_t I>
  using FieldCol = Col<std::tuple_element_t<I, std::tuple<F...>>>;

  struct View {
    std::tuple<typename Col<F>::View...> fields{};
    [[nodiscard]] Ref get(std::size_t i) const {
      return std::apply([i](const auto&... f) { return Ref(f.get(i)...); }, fields);
    }
    [[nodiscard]] bool is_default(std::size_t i) const noexcept {
      return std::apply([i](const auto&... f) { return (true && ... && f.is_default(i)); }, fields);
    }
    void collect(Bytes*& out) const noexcept {
      std::apply([&out](const auto&... f) { (f.collect(out), ...); }, fields);
    }
    [[nodiscard]] std::size_t padded_bytes() const noexcept {
      return std::apply([](const auto&... f) { return (std::size_t{0} + ... + f.padded_bytes()); }, fields);
    }
  };

  struct Fields {
    std::tuple<typename Col<F>::Owned...> fields;
    void push_ref(const Ref& r) {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (std::get<I>(fields).push_ref(std::get<I>(r)), ...);
      }
      (Seq{});
    }
    void push_default() {
      std::apply([](auto&... f) { (f.push_default(), ...); }, fields);
    }
    void gather(const View& src, const std::uint32_t* index, std::size_t n) {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (std::get<I>(fields).gather(std::get<I>(src.fields), index, n), ...);
      }
      (Seq{});
    }
    void clear() noexcept {
      std::apply([](auto&... f) { (f.clear(), ...); }, fields);
    }
    void truncate(std::size_t len) noexcept {
      std::apply([len](auto&... f) { (f.truncate(len), ...); }, fields);
    }
    void expect_bytes(const std::size_t*& sizes) noexcept {
      std::apply([&sizes](auto&... f) { (f.expect_bytes(sizes), ...); }, fields);
    }
    [[nodiscard]] View view() const noexcept {
      return std::apply([](const auto&... f) { return View{{f.view()...}}; }, fields);
    }
  };

  static View parse(Parser& p, std::size_t len, const Path& path) {
    View v;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((std::get<I>(v.fields) = FieldCol<I>::parse(p, len, Path{&path, label, static_cast<int>(I)})), ...);
    }
    (Seq{});
    return v;
  }
  static bool equal(const Ref& a, const Ref& b) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (true && ... && FieldCol<I>::equal(std::get<I>(a), std::get<I>(b)));
    }
    (Seq{});
  }
  static std::string field_names() {
    std::string out;
    ((out += (out.empty() ? "" : ","), out += Col<F>::name()), ...);
    return out;
  }
  static void names(const Path& path, std::vector<std::string>& out) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (FieldCol<I>::names(Path{&path, label, static_cast<int>(I)}, out), ...);
    }
    (Seq{});
  }
};

inline constexpr char tuple_label[] = "tuple";
inline constexpr char struct_label[] = "struct";

template <class T, class Seq = std::make_index_sequence<std::tuple_size_v<T>>>
struct TupleProduct;
template <class T, std::size_t... I>
struct TupleProduct<T, std::index_sequence<I...>> {
  using type = Product<tuple_label, std::tuple_element_t<I, T>...>;
};

/// `std::pair` and `std::tuple`: a column per element (a pair is laid out as a 2-tuple).
template <class T>
struct Col<T, Kind::tuple> : TupleProduct<T>::type {
  using Base = typename TupleProduct<T>::type;
  using typename Base::Ref;
  struct Owned : Base::Fields {
    void push(const T& v) {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (std::get<I>(this->fields).push(std::get<I>(v)), ...);
      }
      (typename Base::Seq{});
    }
  };
  static T to_owned(const Ref& r) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return T(Base::template FieldCol<I>::to_owned(std::get<I>(r))...);
    }
    (typename Base::Seq{});
  }
  static std::string name() { return "tuple<" + Base::field_names() + ">"; }
};

template <class T, class Seq = std::make_index_sequence<boost::pfr::tuple_size_v<T>>>
struct AggregateProduct;
template <class T, std::size_t... I>
struct AggregateProduct<T, std::index_sequence<I...>> {
  using type = Product<struct_label, Field<T, I>...>;
};

/// Aggregates: a column per field, in declaration order (Boost.PFR); borrowed as a tuple.
template <class T>
struct Col<T, Kind::aggregate> : AggregateProduct<T>::type {
  using Base = typename AggregateProduct<T>::type;
  using typename Base::Ref;
  struct Owned : Base::Fields {
    void push(const T& v) {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (std::get<I>(this->fields).push(boost::pfr::get<I>(v)), ...);
      }
      (typename Base::Seq{});
    }
  };
  static T to_owned(const Ref& r) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return T{Base::template FieldCol<I>::to_owned(std::get<I>(r))...};
    }
    (typename Base::Seq{});
  }
  static std::string name() { return "struct{" + Base::field_names() + "}"; }
};

}  // namespace timely::container::columnar::detail
