// The one way spillway names the values of an enum: a constexpr name function that is a
// switch over every enumerator, and what is derived from it (every value, every name, the
// value of a name). -Wswitch (an error in the default build) refuses a name function that
// forgets an enumerator, so a value added to an enum is named, listed and parsed the moment
// it has its case, and in no other place.
#ifndef SPILLWAY_VOCAB_NAMES_H_
#define SPILLWAY_VOCAB_NAMES_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace spillway::vocab {

namespace names_internal {
template <typename Enum>
Enum EnumOf(std::string_view (*name_of)(Enum));
}  // namespace names_internal

// The enum that `kNameOf` names.
template <auto kNameOf>
using EnumOf = decltype(names_internal::EnumOf(kNameOf));

// How many values `kNameOf` names: its enum's values are 0..N-1, and kNameOf returns ""
// for the first value past them (the `return {}` after its switch).
template <auto kNameOf>
inline constexpr size_t kCountOf = [] {
  size_t n = 0;
  while (!kNameOf(static_cast<EnumOf<kNameOf>>(n)).empty()) ++n;
  return n;
}();

// Every value, in enum order.
template <auto kNameOf>
constexpr std::array<EnumOf<kNameOf>, kCountOf<kNameOf>> AllValues() {
  std::array<EnumOf<kNameOf>, kCountOf<kNameOf>> values{};
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<EnumOf<kNameOf>>(i);
  return values;
}

// Every name, in enum order: what a help text or a document lists.
template <auto kNameOf>
constexpr std::array<std::string_view, kCountOf<kNameOf>> AllNames() {
  std::array<std::string_view, kCountOf<kNameOf>> names{};
  for (size_t i = 0; i < names.size(); ++i) names[i] = kNameOf(static_cast<EnumOf<kNameOf>>(i));
  return names;
}

// Every name, in enum order, joined by `separator` ("transient, persistent").
template <auto kNameOf>
std::string JoinedNames(std::string_view separator) {
  std::string joined;
  for (std::string_view name : AllNames<kNameOf>()) {
    if (!joined.empty()) joined.append(separator);
    joined.append(name);
  }
  return joined;
}

// The value called `name`, or nullopt for a name that is none of them.
template <auto kNameOf>
constexpr std::optional<EnumOf<kNameOf>> ParseName(std::string_view name) {
  for (EnumOf<kNameOf> value : AllValues<kNameOf>()) {
    if (kNameOf(value) == name) return value;
  }
  return std::nullopt;
}

// True when every name is a distinct word of lower-case letters, digits and underscores
// (snake_case, the one spelling of every name a report prints).
template <auto kNameOf>
constexpr bool IsSnakeCaseVocabulary() {
  constexpr std::array kNames = AllNames<kNameOf>();
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i].front() == '_' || kNames[i].back() == '_') return false;
    for (char c : kNames[i]) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    for (size_t j = 0; j < i; ++j) {
      if (kNames[i] == kNames[j]) return false;
    }
  }
  return true;
}

}  // namespace spillway::vocab

#endif  // SPILLWAY_VOCAB_NAMES_H_
