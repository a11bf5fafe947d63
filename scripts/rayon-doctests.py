#!/usr/bin/env python3
"""rayon's documentation examples as tests, for rayon-doctests.sh.

  rayon-doctests.py extract SRC_DIR TESTS_DIR   write one test file per source file
  rayon-doctests.py run BINARY...               run every test in a process of its own

`extract` reads the doc comments of a crate's sources (`///` and `//!`) and turns each
Rust code block into a test, the way rustdoc does: lines hidden with `# ` are kept, a
block without `fn main` becomes the test's body, a block with one becomes a module whose
`main` the test calls, `should_panic` blocks must panic, `no_run` blocks are compiled
only. `compile_fail` and `ignore` blocks, and blocks in another language, are counted and
left out. `run` runs each test alone, as rustdoc runs each example as a program of its
own (some configure the global pool).
"""
import os
import re
import subprocess
import sys

DOC_LINE = re.compile(r"^\s*//[/!](?![/!])\s?(.*)$")
RUST_WORDS = {"", "rust", "should_panic", "no_run", "ignore-wasm", "edition2015", "edition2018",
              "edition2021"}


def blocks(path):
    """(line number, info words, code lines) of each fenced block in the file's doc comments.

    A block that a line of code interrupts is a template inside a macro (`#[$attr]` between
    doc lines); it is yielded with the info word `macro` and its closing fence skipped."""
    fence, info, code, start, skipping = None, None, [], 0, False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        m = DOC_LINE.match(line)
        text = m.group(1) if m else None
        is_fence = text is not None and text.lstrip().startswith("```")
        if skipping:
            skipping = not is_fence
            continue
        if fence is None:
            if is_fence:
                fence = text[: len(text) - len(text.lstrip())]
                info = {w for w in re.split(r"[,\s]+", text.lstrip()[3:].strip()) if w} or {""}
                code, start = [], number
            continue
        if text is None or is_fence:
            if text is None:
                info, skipping = {"macro"}, True
            yield start, info, code
            fence = None
            continue
        code.append(text[len(fence):] if text.startswith(fence) else text.lstrip())


def unhide(line):
    """rustdoc's hidden lines: `# code` is code, a lone `#` an empty line, `##` a `#`."""
    stripped = line.lstrip()
    if stripped == "#":
        return ""
    if stripped.startswith("# "):
        return stripped[2:]
    if stripped.startswith("##"):
        return line.replace("##", "#", 1)
    return line


def test_source(name, info, code):
    lines = [unhide(l) for l in code]
    # Crate attributes and `extern crate` of the crate under test have no place in a test;
    # the dependency is in scope under its name anyway.
    lines = [l for l in lines if not re.match(r"\s*#!\[", l)
             and not re.match(r"\s*extern crate rayon(_core)?\s*;", l)]
    body = "\n".join("    " + l if l else "" for l in lines)
    attrs = "#[test]\n" if "no_run" not in info else "#[allow(dead_code)]\n"
    if "should_panic" in info:
        attrs += "#[should_panic]\n"
    text = "\n".join(lines)
    if re.search(r"\bfn\s+main\s*\(", text):
        call = "main().unwrap()" if re.search(r"fn\s+main\s*\(\s*\)\s*->", text) else "main()"
        return f"mod {name} {{\n{body}\n\n{attrs}fn run() {{\n    {call};\n}}\n}}\n"
    last = next((l.strip() for l in reversed(lines) if l.strip()), "")
    if last.startswith("Ok::<") or last.startswith("Ok(())"):
        # rustdoc runs such an example in a `main` that returns its `Result`.
        return f"{attrs}fn {name}() {{\n    (|| {{\n{body}\n    }})().unwrap();\n}}\n"
    return f"{attrs}fn {name}() {{\n{body}\n}}\n"


def extract(src, out):
    os.makedirs(out, exist_ok=True)
    counts = {"tests": 0, "compile_fail": 0, "ignored": 0, "macro templates": 0,
              "other languages": 0}
    for root, _, files in sorted(os.walk(src)):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)[:-3]
            tests = []
            for start, info, code in blocks(path):
                if "macro" in info:
                    counts["macro templates"] += 1
                elif "compile_fail" in info:
                    counts["compile_fail"] += 1
                elif "ignore" in info:
                    counts["ignored"] += 1
                elif not info <= RUST_WORDS:
                    counts["other languages"] += 1
                else:
                    tests.append(test_source(f"line_{start}", info, code))
            if tests:
                counts["tests"] += len(tests)
                name = "doc_" + re.sub(r"\W", "_", rel)
                with open(os.path.join(out, name + ".rs"), "w") as o:
                    o.write(f"//! The examples in the doc comments of rayon's src/{rel}.rs.\n")
                    o.write("#![allow(unused, deprecated, clippy::all)]\n\n")
                    o.write("\n".join(tests))
    left_out = ", ".join(f"{v} {k}" for k, v in counts.items() if k != "tests" and v)
    print(f"{counts['tests']} examples" + (f" (left out: {left_out})" if left_out else ""))


def run(binaries):
    passed, failed = 0, []
    for binary in binaries:
        listed = subprocess.run([binary, "--list", "--format", "terse"], capture_output=True,
                                text=True, check=True).stdout
        names = [l.rsplit(": ", 1)[0] for l in listed.splitlines() if l.endswith(": test")]
        for name in names:
            try:
                r = subprocess.run([binary, "--exact", name, "--test-threads", "1"],
                                   capture_output=True, text=True, timeout=120)
                ok = r.returncode == 0 and "1 passed" in r.stdout
            except subprocess.TimeoutExpired:
                ok, r = False, None
            if ok:
                passed += 1
            else:
                failed.append(f"{os.path.basename(binary).rsplit('-', 1)[0]}::{name}")
                if r is not None:
                    sys.stderr.write(r.stdout[-2000:] + r.stderr[-2000:])
    for f in failed:
        print("failed:", f)
    print(f"{passed} of {passed + len(failed)} examples pass")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3])
    else:
        sys.exit(run(sys.argv[2:]))
