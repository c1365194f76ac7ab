// Symbolizes the frames lines of a `spillway inject --trace` file after the run
// (docs/inject.md#call-sites): the shim names a frame only by what dladdr finds (exported
// symbols); this adds the function and file:line that addr2line reads from the module's
// symbol table and debug information.
#ifndef SPILLWAY_INJECT_LAUNCHER_TRACE_SYMBOLS_H_
#define SPILLWAY_INJECT_LAUNCHER_TRACE_SYMBOLS_H_

#include <string>

namespace spillway::inject {

// Rewrites the trace file at `path` in place: every frame of a frames line
// (`{"site":ID,"frames":[...]}`) that is a bare `MODULE+0xOFFSET` becomes
// `MODULE+0xOFFSET FUNCTION FILE:LINE` (either part left out when unknown), using
// addr2line(1) once per module. Call lines are kept byte for byte. Does nothing when
// addr2line is not installed, the file cannot be read or addr2line names no frame; a
// frame it cannot name stays bare.
void SymbolizeTraceFrames(const std::string& path);

}  // namespace spillway::inject

#endif  // SPILLWAY_INJECT_LAUNCHER_TRACE_SYMBOLS_H_
