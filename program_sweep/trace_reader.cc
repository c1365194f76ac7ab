#include "trace_reader.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <string_view>

#include "verdict.h"

namespace spillway::program_sweep {
namespace {

// The value of string key `key` ("\"op\":\"") in `line`; false when it has none.
bool StringField(std::string_view line, std::string_view key, std::string* value) {
  const size_t at = line.find(key);
  if (at == std::string_view::npos) return false;
  const size_t start = at + key.size();
  const size_t end = line.find('"', start);
  if (end == std::string_view::npos) return false;
  value->assign(line.substr(start, end - start));
  return true;
}

// A call line read without a JSON parser: inject writes call lines with these keys and no
// escapes in most paths. False (read it with the parser) for a line with a backslash, one
// that is not a whole object, or one without "seq".
bool FastCall(std::string_view line, uint64_t* seq, TracedCall* call) {
  if (line.size() < 2 || line.front() != '{' || line.back() != '}' ||
      line.find('\\') != std::string_view::npos) {
    return false;
  }
  constexpr std::string_view kSeq = "{\"seq\":";
  if (line.substr(0, kSeq.size()) != kSeq) return false;
  const char* first = line.data() + kSeq.size();
  const auto [end, ec] = std::from_chars(first, line.data() + line.size(), *seq);
  if (ec != std::errc() || end == first || *end != ',') return false;
  if (!StringField(line, "\"op\":\"", &call->op) ||
      !StringField(line, "\"call\":\"", &call->call) ||
      !StringField(line, "\"path\":\"", &call->path)) {
    return false;
  }
  call->injected = line.find("\"injected\":true") != std::string_view::npos;
  if (!StringField(line, "\"site\":\"", &call->site)) call->site.clear();
  return true;
}

}  // namespace

TraceReader::TraceReader(const std::string& path, int skip, std::string scope, bool with_dir,
                         SiteFn on_site)
    : in_(path), scope_(std::move(scope)), with_dir_(with_dir), on_site_(std::move(on_site)) {
  ok_ = in_.is_open();
  std::string line;
  for (int i = 0; i < skip && std::getline(in_, line); ++i) ++line_number_;
}

void TraceReader::Fill() {
  std::string line;
  while (window_.size() < kTraceReorderWindow && std::getline(in_, line)) {
    ++line_number_;
    uint64_t seq = 0;
    TracedCall fast;
    if (FastCall(line, &seq, &fast)) {
      fast.path = ShowPath(fast.path, scope_, with_dir_);
      window_.emplace(seq, std::move(fast));
      continue;
    }
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (bad_line_ == 0) bad_line_ = line_number_;
      continue;
    }
    if (!j.contains("seq")) {
      if (on_site_ && j.contains("site") && j["site"].is_string()) {
        std::vector<std::string> frames;
        if (j.contains("frames") && j["frames"].is_array()) {
          for (const nlohmann::json& f : j["frames"]) {
            if (f.is_string()) frames.push_back(f.get<std::string>());
          }
        }
        on_site_(j["site"].get<std::string>(), std::move(frames));
      }
      continue;
    }
    TracedCall call;
    call.op = j.value("op", "");
    call.call = j.value("call", "");
    call.path = ShowPath(j.value("path", ""), scope_, with_dir_);
    call.injected = j.value("injected", false);
    call.site = j.value("site", "");
    window_.emplace(j.value("seq", uint64_t{0}), std::move(call));
  }
}

bool TraceReader::Next(TracedCall* call) {
  Fill();
  if (window_.empty()) return false;
  // The queue's top is const; its call is copied out before the pop.
  *call = window_.top().second;
  call->seq = window_.top().first;
  window_.pop();
  return true;
}

}  // namespace spillway::program_sweep
