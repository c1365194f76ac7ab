// libFuzzer target for the scenario parser: arbitrary bytes go to Parse(). Parse must not
// crash, leak or invoke undefined behaviour (the build adds ASan and UBSan); a ParseError
// must name a line of the input; and whatever parses must print (ToText) to text that
// parses again to equivalent commands and prints the same.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "spillway/scenario/scenario.h"

namespace {

using spillway::scenario::CommandsEquivalent;
using spillway::scenario::Parse;
using spillway::scenario::ParseError;
using spillway::scenario::Scenario;
using spillway::scenario::ToText;

// Reports a broken invariant and aborts, which libFuzzer records as a crash with the input.
[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "scenario_parser_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::variant<Scenario, ParseError> parsed = Parse(text, "fuzz");
  if (const ParseError* error = std::get_if<ParseError>(&parsed)) {
    const long lines = 1 + std::count(text.begin(), text.end(), '\n');
    if (error->line < 1 || error->line > lines) Fail("error line out of range", error->message);
    if (error->message.empty()) Fail("error without a message", std::to_string(error->line));
    return 0;
  }
  const Scenario& scenario = std::get<Scenario>(parsed);
  const std::string printed = ToText(scenario.commands);
  std::variant<Scenario, ParseError> again = Parse(printed, "printed");
  if (const ParseError* error = std::get_if<ParseError>(&again)) {
    Fail("printed scenario does not parse", error->message + "\nprinted:\n" + printed);
  }
  const Scenario& reparsed = std::get<Scenario>(again);
  if (reparsed.commands.size() != scenario.commands.size()) {
    Fail("printed scenario has another number of commands", printed);
  }
  for (size_t i = 0; i < scenario.commands.size(); ++i) {
    if (!CommandsEquivalent(scenario.commands[i], reparsed.commands[i])) {
      Fail("command changed through printing",
           scenario.commands[i].ToString() + " -> " + reparsed.commands[i].ToString());
    }
  }
  if (ToText(reparsed.commands) != printed) Fail("printing is not stable", printed);
  return 0;
}
