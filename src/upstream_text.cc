// DataFusion's texts (upstream_text.h): human_readable_size from
// datafusion/common/src/display/human_readable.rs, and escape_for_temp_file_name_prefix and
// the DiskManager errors from datafusion/execution/src/disk_manager.rs at 02ee6daeb0cf.
#include "upstream_text.h"

#include <fmt/format.h>
#include <locale.h>
#include <wctype.h>

#include <array>

namespace spillway::internal {
namespace {

// human_readable_size's units (datafusion_common::display::human_readable::units), largest
// first. A unit is used from twice its size up.
struct SizeUnit {
  uint64_t bytes;
  std::string_view name;
};
constexpr std::array<SizeUnit, 4> kSizeUnits = {
    SizeUnit{uint64_t{1} << 40, "TB"}, SizeUnit{uint64_t{1} << 30, "GB"},
    SizeUnit{uint64_t{1} << 20, "MB"}, SizeUnit{uint64_t{1} << 10, "KB"}};

constexpr char32_t kNotUtf8 = 0xFFFFFFFF;

// Decodes the UTF-8 character at text[*pos] and moves *pos past it. A byte that does not
// start a well-formed character (overlong, surrogate, past U+10FFFF, cut short) decodes
// to kNotUtf8 and is skipped alone.
char32_t DecodeUtf8(std::string_view text, size_t* pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(*pos);
  size_t length = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if (lead < 0x80) {
    ++*pos;
    return lead;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, cp = lead & 0x1F, min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, cp = lead & 0x0F, min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, cp = lead & 0x07, min = 0x10000;
  }
  if (length == 0 || *pos + length > text.size()) {
    ++*pos;
    return kNotUtf8;
  }
  for (size_t i = 1; i < length; ++i) {
    if ((byte(*pos + i) & 0xC0) != 0x80) {
      ++*pos;
      return kNotUtf8;
    }
    cp = (cp << 6) | (byte(*pos + i) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++*pos;
    return kNotUtf8;
  }
  *pos += length;
  return cp;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// glibc's Unicode character classes and case mappings (its C.UTF-8 locale), whatever the
// process locale is; null where that locale is not installed, and then only ASCII letters
// and digits count as alphanumeric.
locale_t UnicodeCtype() {
  static const locale_t kCtype = ::newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t{});
  return kCtype;
}

// Rust's char::is_alphanumeric.
bool IsAlphanumeric(char32_t cp) {
  if (cp < 0x80) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
  }
  const locale_t ctype = UnicodeCtype();
  return cp != kNotUtf8 && ctype != locale_t{} && ::iswalnum_l(static_cast<wint_t>(cp), ctype);
}

// Rust's char::to_lowercase, appended to `out`. REQUIRES: IsAlphanumeric(cp).
void AppendLowercase(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp - 'A' + 'a' : cp));
    return;
  }
  if (cp == 0x130) {  // The one multi-character lowercase mapping (SpecialCasing.txt).
    out->append("i\xCC\x87");
    return;
  }
  AppendUtf8(static_cast<char32_t>(::towlower_l(static_cast<wint_t>(cp), UnicodeCtype())), out);
}

}  // namespace

std::string HumanReadableSize(uint64_t size) {
  for (const SizeUnit& unit : kSizeUnits) {
    if (size / 2 >= unit.bytes) {  // size >= 2 * unit, without overflow.
      return fmt::format("{:.1f} {}", static_cast<double>(size) / static_cast<double>(unit.bytes),
                         unit.name);
    }
  }
  return fmt::format("{:.1f} B", static_cast<double>(size));
}

std::string EscapeForTempFileNamePrefix(std::string_view text) {
  std::string out = ".tmp.";
  bool add_separator = false;
  for (size_t pos = 0; pos < text.size();) {
    const char32_t cp = DecodeUtf8(text, &pos);
    if (IsAlphanumeric(cp)) {
      if (add_separator) out.push_back('_');
      add_separator = false;
      AppendLowercase(cp, &out);
    } else {
      add_separator = true;
    }
    if (out.size() >= kMaxEscapedPrefixBytes) break;
  }
  out.push_back('.');
  return out;
}

std::string LimitExceededMessage(uint64_t limit, std::string_view config_key) {
  return fmt::format(
      "The used disk space during the spilling process has exceeded the allowable limit of {}. "
      "Please try increasing the config: `{}`.",
      HumanReadableSize(limit), config_key);
}

std::string DisabledCreateMessage(std::string_view description) {
  return fmt::format("Memory Exhausted while {} (DiskManager is disabled)", description);
}

}  // namespace spillway::internal
