#!/usr/bin/env python3
"""rayon's documentation examples as tests, for rayon-doctests.sh.

  rayon-doctests.py extract SRC_DIR TESTS_DIR   write one test file per source file
  rayon-doctests.py run BINARY...               run every test in a process of its own
  rayon-doctests.py compile-fail SRC CRATE DIR  write the compile-fail examples as binaries
  rayon-doctests.py judge DIR MESSAGES          check that each was rejected as in rayon

`extract` reads the doc comments of a crate's sources (`///` and `//!`) and turns each
Rust code block into a test, the way rustdoc does: lines hidden with `# ` are kept, a
block without `fn main` becomes the test's body, a block with one becomes a module whose
`main` the test calls, `should_panic` blocks must panic, `no_run` blocks are compiled
only. `compile_fail` and `ignore` blocks, and blocks in another language, are counted and
left out. `run` runs each test alone, as rustdoc runs each example as a program of its
own (some configure the global pool).
"""
import json
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


COMPILE_FAIL = re.compile(r"/\*[!*]\s*```compile_fail(?:,(E\d+))?\n(.*?)```\s*\*/", re.S)
MUST_USE_CASE = re.compile(r"^\s*(\w+)\s*/\*\*\s*(.*?)\s*\*/\s*$", re.M)


def program(code):
    """A compile-fail example as a program: crate attributes first, `main` around it."""
    lines = [unhide(l) for l in code.splitlines()]
    attrs = [l for l in lines if re.match(r"\s*#!\[", l)]
    body = "\n".join(l for l in lines if l not in attrs)
    if not re.search(r"\bfn\s+main\s*\(", body):
        body = "fn main() {\n" + body + "\n}"
    return "\n".join(attrs) + "\n" + body + "\n"


def compile_fail(src, crate, manifest_dir):
    """Writes a package whose binaries are the crate's compile-fail examples (its
    `src/compile_fail/`, and each case of rayon's `must_use!` list, whose template it
    fills), each expecting its error code; `must_use_sanity` holds the same expressions
    bound with `let _ =`, which must compile. Prints how many there are."""
    cases = {}
    folder = os.path.join(src, "compile_fail")
    for f in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        text = open(os.path.join(folder, f), encoding="utf-8").read()
        stem = f[:-3]
        for i, (code, block) in enumerate(COMPILE_FAIL.findall(text)):
            cases[f"{stem}_{i}"] = (code or "any", program(block))
        if stem == "must_use":
            sanity = []
            for name, expr in MUST_USE_CASE.findall(text[text.rindex("must_use! {"):]):
                prefix = f"#![deny(unused_must_use)]\nuse {crate}::prelude::*;\n" \
                         "let v: Vec<_> = (0..100).map(Some).collect();\n"
                cases[f"must_use_{name}"] = ("unused_must_use", program(prefix + expr))
                sanity.append("let _ = " + expr)
            if sanity:
                cases["must_use_sanity"] = ("none", program(prefix + "\n".join(sanity)))
    os.makedirs(os.path.join(manifest_dir, "src", "bin"), exist_ok=True)
    for name, (_, code) in cases.items():
        with open(os.path.join(manifest_dir, "src", "bin", name + ".rs"), "w") as o:
            o.write(code)
    with open(os.path.join(manifest_dir, "expected.txt"), "w") as o:
        o.writelines(f"{name} {code}\n" for name, (code, _) in cases.items())
    print(f"{len(cases)} compile-fail cases")


def judge_compile_fail(manifest_dir, messages):
    """Reads `cargo check --message-format json` output: each case must be rejected with
    its error code, `must_use_sanity` must compile."""
    expected = dict(l.split() for l in open(os.path.join(manifest_dir, "expected.txt")))
    codes = {name: set() for name in expected}
    for line in open(messages):
        m = json.loads(line)
        if m.get("reason") != "compiler-message" or m["message"]["level"] != "error":
            continue
        code = (m["message"].get("code") or {}).get("code", "other")
        codes.setdefault(m["target"]["name"], set()).add(code)
    bad = []
    for name, want in expected.items():
        got = codes.get(name, set())
        ok = not got if want == "none" else (bool(got) if want == "any" else want in got)
        if not ok:
            bad.append(f"{name}: expected {want}, got {sorted(got) or 'no error'}")
    for b in bad:
        print("wrong:", b)
    print(f"{len(expected) - len(bad)} of {len(expected)} compile-fail cases behave as in rayon")
    return 1 if bad else 0


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
    elif sys.argv[1] == "compile-fail":
        compile_fail(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "judge":
        sys.exit(judge_compile_fail(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(run(sys.argv[2:]))
