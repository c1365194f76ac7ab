#include "trace_reader.h"

#include <nlohmann/json.hpp>

#include "verdict.h"

namespace spillway::cmdsweep {

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
  window_.pop();
  return true;
}

}  // namespace spillway::cmdsweep
