#!/usr/bin/env python3
"""Which options must be off to compile the lines a diff adds to headers.

usage: off-branches.py TREE BASE HEAD HEADER...

For each line that `git diff BASE HEAD` adds to a HEADER, find the
preprocessor conditions around it in HEAD's version; a line that only
compiles with an option off (under `#ifndef CONFIG_X`, `#if !defined(...)`,
`#if !IS_ENABLED(CONFIG_X)`, or the #else of `#ifdef CONFIG_X` and the like)
names X.  Prints "HEADER CONFIG_X" a line, each pair once.  make
check-build builds the objects that include such a header once more with
that option off, so that a stub the series adds is compiled too.
"""
import re
import subprocess
import sys

IF_RE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")
ON_RE = re.compile(r"^\s*(?:defined\s*\(?\s*(CONFIG_\w+)\s*\)?|IS_ENABLED\s*\(\s*(CONFIG_\w+)\s*\)|IS_BUILTIN\s*\(\s*(CONFIG_\w+)\s*\)|(CONFIG_\w+))\s*(?:/\*.*)?$")
NOT_RE = re.compile(r"^\s*!\s*(.*)$")


def option_of(expr):
    """(option, True if the expression means it on) for a plain test, else None."""
    neg = NOT_RE.match(expr)
    m = ON_RE.match(neg.group(1) if neg else expr)
    if not m:
        return None
    opt = next(g for g in m.groups() if g)
    return opt, not neg


def added_lines(tree, base, head, header):
    out = subprocess.run(["git", "-C", tree, "diff", "-U0", base, head, "--", header],
                         check=True, capture_output=True, text=True).stdout
    lines = set()
    for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", out, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start, start + count))
    return lines


def main():
    tree, base, head, headers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    seen = set()
    for header in headers:
        text = subprocess.run(["git", "-C", tree, "show", f"{head}:{header}"],
                              check=True, capture_output=True, text=True).stdout
        want = added_lines(tree, base, head, header)
        stack = []      # per open #if: (option, on) of its branch now, or None
        for n, line in enumerate(text.splitlines(), 1):
            m = IF_RE.match(line)
            if m:
                kw, rest = m.group(1), m.group(2).strip()
                if kw == "ifdef":
                    stack.append(option_of(rest))
                elif kw == "ifndef":
                    o = option_of(rest)
                    stack.append((o[0], False) if o else None)
                elif kw == "if":
                    stack.append(option_of(rest))
                elif kw == "elif":
                    if stack:
                        stack[-1] = None
                elif kw == "else":
                    if stack and stack[-1]:
                        stack[-1] = (stack[-1][0], not stack[-1][1])
                elif kw == "endif" and stack:
                    stack.pop()
                continue
            if n not in want:
                continue
            for cond in stack:
                if cond and not cond[1] and (header, cond[0]) not in seen:
                    seen.add((header, cond[0]))
                    print(header, cond[0])


if __name__ == "__main__":
    main()
