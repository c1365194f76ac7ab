#!/usr/bin/env python3
"""spillway's DiskManager against DataFusion's, call by call.

Runs spillway's POSIX DiskManager (posix_spill_client) and LanceDB (spill.js, which
embeds DataFusion) the same way: TMPDIR is a fresh scope directory, under
`spillway inject --trace` (the calls in the scope, in order) and strace (the flags and
modes of each open and mkdir, which the trace does not carry). Each trace is normalized
into facts (random name parts become XXXXXX; fds, sizes, pids and counts are dropped):
how the spill directory is made and with which mode, each file's name, open flags and
modes, which calls write and read it, each file's and directory's life in order (create,
write, read, unlink, rmdir). Facts that differ are the differences; each must be listed,
by its key, in the table of docs/compatibility.md's section KNOWN_SECTION, and every key
listed there must still differ. Prints both sides of each fact.

Usage: conformance.py --spillway EXE --client EXE --node-path DIR --spill-js FILE
                      --compatibility FILE [--work DIR]
Exit: 0 when the differences are exactly the listed ones, 1 otherwise, 2 on bad input,
77 when LanceDB, node or strace is missing (the test is skipped).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

KNOWN_SECTION = "## DataFusion 53.1 as shipped (LanceDB), call by call"

# A tempfile-style random name part: six letters and digits ending a component, after
# ".tmp" or after a description's final dot (".tmp.externalsorter.").
RANDOM_PART = re.compile(r"^(\.tmp(?:\.[^/]*\.)?)[A-Za-z0-9]{6}$")
# "PID call(args) = result", or a call strace split in two when another thread's call came
# between: "PID call(args <unfinished ...>" then "PID <... call resumed>) = result".
STRACE_LINE = re.compile(r"^(\d+)\s+(openat|open|creat|mkdir|mkdirat)\((.*)\)\s+=\s+(-?\d+)")
STRACE_UNFINISHED = re.compile(
    r"^(\d+)\s+(openat|open|creat|mkdir|mkdirat)\((.*) <unfinished \.\.\.>$")
STRACE_RESUMED = re.compile(r"^(\d+)\s+<\.\.\. (\w+) resumed>.*\)\s+=\s+(-?\d+)")
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def NormalizePath(path, scope):
    if path != scope and not path.startswith(scope + "/"):
        return None
    parts = ["{dir}"]
    for part in path[len(scope):].split("/")[1:]:
        parts.append(RANDOM_PART.sub(r"\1XXXXXX", part))
    return "/".join(parts)


def ReadTrace(path, scope):
    """The in-scope calls, in order: (op, call, original path, result)."""
    calls = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            record = json.loads(line)
            if "seq" not in record:  # Call-site lines and other records: not calls.
                continue
            calls.append((record["seq"], record["op"], record["call"], record["path"],
                          record["result"]))
    calls.sort()
    return [(op, call, p, result) for _, op, call, p, result in calls
            if NormalizePath(p, scope) is not None]


def ReadStrace(path, scope):
    """{original path: [(call, flags, mode), ...]} for the opens and mkdirs in scope, in
    order. O_PATH opens are left out: they are the preloaded shim's own lookups."""
    opens, pending = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = STRACE_LINE.match(line)
            if m:
                pid, call, args, result = m.groups()
            elif STRACE_UNFINISHED.match(line):
                pid, call, args = STRACE_UNFINISHED.match(line).groups()
                pending[pid] = (call, args)
                continue
            elif STRACE_RESUMED.match(line):
                pid, call, result = STRACE_RESUMED.match(line).groups()
                if pending.get(pid, ("",))[0] != call:
                    continue
                args = pending.pop(pid)[1]
            else:
                continue
            q = QUOTED.search(args)
            if int(result) < 0 or not q or NormalizePath(q.group(1), scope) is None:
                continue
            rest = [a.strip() for a in args[q.end():].split(",") if a.strip()]
            if call in ("mkdir", "mkdirat"):
                flags, mode = "", rest[0] if rest else ""
            else:
                flags = "|".join(sorted(rest[0].split("|"))) if rest else ""
                mode = rest[1] if len(rest) > 1 else ""
            if "O_PATH" in flags.split("|"):
                continue
            opens.setdefault(q.group(1), []).append((call, flags, mode))
    return opens


def Collapse(ops):
    """Repeats collapsed, so that counts (of batches, of reads) do not matter: a run of one
    op is that op once (write write -> write), then a run of one pair is the pair in
    parentheses marked '+' (write stat write stat -> (write stat)+)."""
    out = []
    for op in ops:
        if not out or out[-1] != op:
            out.append(op)
    pairs = []
    i = 0
    while i < len(out):
        pair = out[i:i + 2]
        n = 1
        while len(pair) == 2 and out[i + 2 * n:i + 2 * n + 2] == pair:
            n += 1
        if n > 1:
            pairs.append(f"({' '.join(pair)})+")
            i += 2 * n
        else:
            pairs.append(out[i])
            i += 1
    return " ".join(pairs)


def FileLife(ops):
    """A file's calls up to its first read, without closes: when the threads of a merge
    interleave, only that part comes in the same order every time."""
    until = ops.index("read") + 1 if "read" in ops else len(ops)
    return Collapse([op for op in ops[:until] if op != "close"])


def UnlinkOrder(ops):
    """Where the file's unlink comes: before or after its last close, and after the open
    that reads it back or not."""
    if "remove" not in ops:
        return "never unlinked"
    at = ops.index("remove")
    closes = [i for i, op in enumerate(ops) if op == "close"]
    opens = [i for i, op in enumerate(ops) if op == "open"]
    when = "after its last close" if closes and at > closes[-1] else "while still open"
    read = "after" if opens and at > opens[-1] else "before"
    return f"unlinked {when}, {read} the open that reads it back"


def Facts(trace, strace, scope):
    """The normalized facts of one run: {key: value}."""
    dirs, files, life, calls_by_op = [], [], {}, {}
    for op, call, path, result in trace:
        if op == "mkdir" and result == 0 and path not in dirs:
            dirs.append(path)
        if op == "create" and result == 0 and path not in files:
            files.append(path)
        life.setdefault(path, []).append(op if result == 0 else op + "!")
        if path in files:
            calls_by_op.setdefault(op, set()).add(call)
    facts = {}
    facts["dir.names"] = " ".join(sorted({NormalizePath(d, scope) for d in dirs})) or "none"
    facts["dir.count"] = str(len(dirs))
    facts["dir.made_by"] = " ".join(sorted(
        {f"{c} mode={m}" for d in dirs for c, _, m in strace.get(d, [])
         if c.startswith("mkdir")})) or "none"
    facts["dir.opens"] = " | ".join(sorted(
        {f"{c} {fl}" for d in dirs for c, fl, _ in strace.get(d, [])
         if not c.startswith("mkdir")})) or "none"
    facts["dir.made_first"] = "yes" if trace and trace[0][0] == "mkdir" else "no"
    facts["dir.life"] = " | ".join(sorted({Collapse(life[d]) for d in dirs})) or "none"
    facts["file.names"] = " ".join(sorted({NormalizePath(p, scope) for p in files})) or "none"
    facts["file.create"] = " | ".join(sorted(
        {f"{c} {fl} mode={m}" for p in files for c, fl, m in strace.get(p, [])[:1]})) or "none"
    facts["file.reopen"] = " | ".join(sorted(
        {f"{c} {fl}" + (f" mode={m}" if m else "")
         for p in files for c, fl, m in strace.get(p, [])[1:]})) or "none"
    for op in ("write", "read", "remove", "stat", "close", "sync"):
        facts[f"file.{op}_calls"] = " ".join(sorted(calls_by_op.get(op, set()))) or "none"
    facts["file.life"] = " | ".join(sorted({FileLife(life[p]) for p in files})) or "none"
    facts["file.unlink"] = " | ".join(sorted({UnlinkOrder(life[p]) for p in files})) or "none"
    return facts


def KnownKeys(compatibility):
    """The keys of the rows of KNOWN_SECTION's table: first cell `key`."""
    keys, inside = [], False
    with open(compatibility, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                inside = line.strip() == KNOWN_SECTION
                continue
            m = re.match(r"^\|\s*`([a-z_.]+)`\s*\|", line)
            if inside and m:
                keys.append(m.group(1))
    return keys


def RunTraced(spillway, scope, trace, strace, argv, env):
    strace_exe = shutil.which("strace")
    cmd = [spillway, "inject", "--under", scope, "--trace", trace, "--", strace_exe, "-f",
           "-qq", "-e", "trace=open,openat,creat,mkdir,mkdirat", "-o", strace,
           "env", f"TMPDIR={scope}"] + env + argv
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=600)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}")
    return done.stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name in ("--spillway", "--client", "--node-path", "--spill-js", "--compatibility"):
        parser.add_argument(name, required=True)
    parser.add_argument("--work")
    parser.add_argument("--rows", default="300000")
    args = parser.parse_args()
    for path in (args.spillway, args.client, args.spill_js, args.compatibility):
        if not os.path.exists(path):
            print(f"conformance.py: {path} does not exist", file=sys.stderr)
            return 2
    lancedb = os.path.join(args.node_path, "@lancedb", "lancedb", "package.json")
    for needed in ("node", "strace"):
        if shutil.which(needed) is None:
            print(f"skipped: {needed} is not installed (scripts/install-deps.sh engines)")
            return 77
    if not os.path.exists(lancedb):
        print(f"skipped: {lancedb} is not installed (scripts/install-deps.sh engines)")
        return 77

    work = args.work or tempfile.mkdtemp(prefix="spillway-conformance-")
    try:
        sides = {}
        for side in ("spillway", "datafusion"):
            scope = os.path.realpath(os.path.join(work, side, "scope"))
            os.makedirs(scope)
            trace = os.path.join(work, side, "trace.jsonl")
            strace = os.path.join(work, side, "strace.txt")
            if side == "spillway":
                out = RunTraced(args.spillway, scope, trace, strace, [args.client], [])
            else:
                db = os.path.join(work, side, "db")
                os.makedirs(db)
                out = RunTraced(args.spillway, scope, trace, strace,
                                ["node", args.spill_js, db, args.rows],
                                [f"NODE_PATH={args.node_path}",
                                 "LANCE_MEM_POOL_SIZE=12000000"])
            print(f"{side}: {out}")
            sides[side] = Facts(ReadTrace(trace, scope), ReadStrace(strace, scope), scope)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    ours, theirs = sides["spillway"], sides["datafusion"]
    if theirs["file.names"] == "none":
        print("FAIL: LanceDB made no spill file in TMPDIR: it did not spill")
        return 1
    known = KnownKeys(args.compatibility)
    differ = [k for k in ours if ours[k] != theirs[k]]
    for key in ours:
        mark = "differs" if key in differ else "same"
        print(f"{key}: {mark}\n  spillway:   {ours[key]}\n  datafusion: {theirs[key]}")
    unlisted = [k for k in differ if k not in known]
    stale = [k for k in known if k not in differ]
    for key in unlisted:
        print(f"FAIL: {key} differs and is not listed in {args.compatibility}")
    for key in stale:
        print(f"FAIL: {key} is listed in {args.compatibility} but no longer differs")
    if not known:
        print(f"FAIL: no table under '{KNOWN_SECTION}' in {args.compatibility}")
        return 1
    print(f"differences: {len(differ)}, all listed" if not (unlisted or stale) else
          f"differences: {len(differ)}, {len(unlisted)} unlisted, {len(stale)} stale")
    return 1 if unlisted or stale else 0


if __name__ == "__main__":
    sys.exit(main())
