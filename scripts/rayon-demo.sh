#!/usr/bin/env bash
# rayon's own benchmark program, rayon-demo, against forkjoin: every `#[bench]` it has
# (libtest's bench harness, `cargo +nightly bench`: factorial, fibonacci, find,
# join_microbench, life, map_collect, matmul, mergesort, nbody, pythagoras, quicksort,
# sieve, sort, str_split, tree, tsp, vec_collect), built twice as users build it (cargo's
# default bench profile, empty RUSTFLAGS: no `-C target-cpu=native`): once against rayon
# 1.12.0 from crates.io (`ry`) and once against this working tree's forkjoin under rayon's
# name (`fj`, Cargo's `package =`). Nothing of rayon's is kept in this repository.
#
# The source is rayon's repository: `--repo DIR`, else $RAYON_REPO, else a clone of
# https://github.com/rayon-rs/rayon in target/rayon-demo/rayon. Its rayon-demo/ is copied
# twice, into target/rayon-demo/ry and target/rayon-demo/fj, each with a Cargo.toml of its
# own (no workspace inheritance, an empty `[workspace]`) and without the OpenGL visualiser
# of nbody (glium and winit: `nbody visualize` then only prints an error). The first run
# seeds each crate's Cargo.lock with this workspace's; cargo resolves the rest.
#
# Each round runs, per thread count, both bench binaries one after the other (which one
# goes first alternates by round), as `RAYON_NUM_THREADS=t BIN --bench [FILTER]` in the
# crate's directory. Then, per benchmark and thread count, the best (smallest) ns/iter of
# each runtime over the rounds, fj/ry of those, and the range of the rounds' own fj/ry;
# worst first, then per thread count the geometric mean, the count above 1.10x and the
# worst 10. A benchmark that fails or is missing in either runtime is listed as such.
# Raw outputs: target/rayon-demo/runs/ (emptied each run); all per-round values:
# target/rayon-demo/rayon-demo.json. Measure on a quiet machine.
#
#   scripts/rayon-demo.sh                               # threads 1,2, 3 rounds, everything
#   scripts/rayon-demo.sh --threads 2 --rounds 1 --filter nbody
#   RAYON_REPO=~/src/rayon scripts/rayon-demo.sh --rounds 5
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/target/rayon-demo

usage() {
    cat <<'EOF'
usage: scripts/rayon-demo.sh [--threads 1,2] [--rounds 3] [--filter SUBSTRING] [--repo DIR]
  --threads LIST   comma-separated RAYON_NUM_THREADS values (default 1,2)
  --rounds N       rounds of both runtimes at every thread count (default 3)
  --filter S       only the benchmarks whose name contains S (libtest's filter)
  --repo DIR       a work tree of rayon's repository (default $RAYON_REPO, else a clone
                   of https://github.com/rayon-rs/rayon in target/rayon-demo/rayon)
EOF
}
die() {
    echo "rayon-demo: $*" >&2
    exit 1
}

threads=1,2
rounds=3
filter=
repo=${RAYON_REPO:-}
while (($#)); do
    case $1 in
        --threads | --rounds | --filter | --repo)
            (($# >= 2)) || die "$1 needs a value (see --help)"
            case $1 in
                --threads) threads=$2 ;;
                --rounds) rounds=$2 ;;
                --filter) filter=$2 ;;
                --repo) repo=$2 ;;
            esac
            shift 2
            ;;
        --threads=* | --rounds=* | --filter=* | --repo=*)
            value=${1#*=}
            case $1 in
                --threads=*) threads=$value ;;
                --rounds=*) rounds=$value ;;
                --filter=*) filter=$value ;;
                --repo=*) repo=$value ;;
            esac
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            usage >&2
            die "unknown argument: $1"
            ;;
    esac
done
[[ $threads =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
    die "--threads wants positive integers separated by commas, not '$threads'"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive integer, not '$rounds'"
IFS=, read -r -a thread_list <<<"$threads"

# The bench harness (`#![feature(test)]`) needs a nightly toolchain.
nightly=$(cargo +nightly --version 2>/dev/null) && rustc_nightly=$(rustc +nightly --version 2>/dev/null) ||
    die "no nightly toolchain: rayon-demo's benchmarks use libtest's unstable bench harness (rustup toolchain install nightly)"
command -v python3 >/dev/null || die "python3 is needed to write the manifests and read the results"
command -v git >/dev/null || die "git is needed"

# 1. rayon's repository.
mkdir -p "$work"
if [[ -z $repo ]]; then
    repo=$work/rayon
    if [[ ! -d $repo/.git ]]; then
        echo "cloning https://github.com/rayon-rs/rayon into $repo"
        git clone --quiet https://github.com/rayon-rs/rayon "$repo" || die "could not clone rayon's repository (give one with --repo DIR)"
    fi
fi
[[ -f $repo/Cargo.toml && -f $repo/rayon-demo/Cargo.toml ]] ||
    die "$repo is not a work tree of rayon's repository (no Cargo.toml and rayon-demo/Cargo.toml)"
repo=$(cd "$repo" && pwd)
commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null) || commit=unknown
describe=$(git -C "$repo" describe --always --tags --dirty 2>/dev/null) || describe=unknown
fj_commit=$(git -C "$root" rev-parse HEAD 2>/dev/null) || fj_commit=unknown
fj_describe=$(git -C "$root" describe --always --dirty 2>/dev/null) || fj_describe=unknown
echo "rayon's repository: $repo at $commit ($describe)"
echo "forkjoin: $root/forkjoin at $fj_describe"
echo "toolchain: $rustc_nightly"

# 2. The two crates: rayon-demo/ with a manifest of its own, rayon or forkjoin as `rayon`.
#    Written afresh in DIR.new, then only the files that changed go to DIR (cargo would
#    otherwise rebuild the crate each time for the new modification times).
make_crate() { # dir, the `rayon` dependency line
    local final=$1 dir=$1.new
    rm -rf "$dir"
    mkdir -p "$dir"
    cp -r "$repo/rayon-demo/src" "$repo/rayon-demo/data" "$dir/"
    [[ -d $repo/rayon-demo/examples ]] && cp -r "$repo/rayon-demo/examples" "$dir/"
    # The lock of an earlier run, else this workspace's as a start.
    if [[ -f $final/Cargo.lock ]]; then
        cp "$final/Cargo.lock" "$dir/Cargo.lock"
    else
        cp "$root/Cargo.lock" "$dir/Cargo.lock"
    fi
    python3 - "$repo" "$dir" "$2" <<'EOF'
import re, sys, tomllib
repo, dest, rayon_line = sys.argv[1:]
root = tomllib.load(open(f"{repo}/Cargo.toml", "rb"))["workspace"]
text = open(f"{repo}/rayon-demo/Cargo.toml").read()
def toml(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml(x) for x in v) + "]"
    return "{ " + ", ".join(f"{k} = {toml(x)}" for k, x in v.items()) + " }"
out, section = [], ""
for line in text.splitlines():
    s = line.strip()
    if s.startswith("["):
        section = s
    key = s.split("=")[0].strip().strip('"')
    if key in ("glium", "winit"):                # the OpenGL visualiser's
        continue
    if key == "rayon" and "dependencies" in section:
        out.append(rayon_line)
        continue
    m = re.fullmatch(r'([A-Za-z0-9_-]+)\.workspace\s*=\s*true', s)
    if m:
        name = m.group(1)
        if section == "[package]":
            out.append(f"{name} = {toml(root['package'][name])}")
        else:
            out.append(f"{name} = {toml(root['dependencies'][name])}")
        continue
    if re.fullmatch(r'workspace\s*=\s*true', s):  # `[lints] workspace = true`
        sys.exit(f"rayon-demo's Cargo.toml inherits a section: {section}")
    out.append(line)
out += ["", "# Standalone: not a member of rayon's workspace nor of forkjoin's.", "[workspace]", ""]
manifest = "\n".join(out)
parsed = tomllib.loads(manifest)
left = re.findall(r".*workspace\s*=\s*true.*", manifest)
assert not left, f"workspace inheritance left: {left}"
deps = parsed["dependencies"]
assert "glium" not in deps and "winit" not in deps and "rayon" in deps, deps
open(f"{dest}/Cargo.toml", "w").write(manifest)
EOF
    # nbody without its visualiser (glium, winit): the module, its `use`, the call.
    python3 - "$dir/src/nbody/mod.rs" <<'EOF'
import re, sys
path = sys.argv[1]
src = open(path).read()
new = re.sub(r"^mod visualize;\n", "", src, count=1, flags=re.M)
new = re.sub(r"^use self::visualize::visualize_benchmarks;\n", "", new, count=1, flags=re.M)
new = re.sub(r"visualize_benchmarks\(\s*args\.flag_bodies,\s*args\.flag_mode\.unwrap_or\(ExecutionMode::Par\),?\s*\);",
             'eprintln!("nbody visualize: not in this build (no glium/winit)");\n'
             '        std::process::exit(1);', new, count=1)
if new.count("visualize_benchmarks") or "mod visualize" in new:
    sys.exit(f"{path}: could not take out the visualiser (rayon-demo changed?)")
open(path, "w").write(new)
EOF
    rm -f "$dir/src/nbody/visualize.rs"
    python3 - "$dir" "$final" <<'EOF'
import filecmp, os, shutil, sys
new, old = sys.argv[1:]
for base, dirs, files in os.walk(new):
    rel = os.path.relpath(base, new)
    os.makedirs(os.path.join(old, rel), exist_ok=True)
    for f in files:
        a, b = os.path.join(base, f), os.path.join(old, rel, f)
        if not (os.path.isfile(b) and filecmp.cmp(a, b, shallow=False)):
            shutil.copyfile(a, b)
for base, dirs, files in os.walk(old, topdown=False):
    rel = os.path.relpath(base, old)
    for f in files:
        if not os.path.exists(os.path.join(new, rel, f)):
            os.remove(os.path.join(base, f))
    if not os.path.isdir(os.path.join(new, rel)):
        os.rmdir(base)
EOF
    rm -rf "$dir"
}
make_crate "$work/ry" 'rayon = "=1.12.0"'
make_crate "$work/fj" "rayon = { package = \"forkjoin\", path = \"$root/forkjoin\" }"

# 3. Build both as a user does, in one target directory (the dependencies they share are
#    built once). The bench executable is the test build of the `rayon-demo` binary.
# Empty RUSTFLAGS overrides `build.rustflags` (target-cpu=native) of .cargo/config.toml.
export RUSTFLAGS=""
unset CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_PROFILE_BENCH_LTO CARGO_PROFILE_RELEASE_LTO
export CARGO_TARGET_DIR=$work/target
declare -A bin
for rt in ry fj; do
    log=$work/build-$rt.log
    start=$SECONDS
    echo "building $rt (log: $log)"
    if ! cargo +nightly bench --no-run --manifest-path "$work/$rt/Cargo.toml" \
        --message-format=json-render-diagnostics >"$work/build-$rt.json" 2>"$log"; then
        # The errors (cargo prints its warnings after them), else the log's end.
        if grep -q '^error' "$log"; then grep -A12 '^error' "$log" | head -n 40 >&2; else tail -n 30 "$log" >&2; fi
        die "the $rt build failed (see $log)"
    fi
    bin[$rt]=$(python3 - "$work/build-$rt.json" <<'EOF'
import json, sys
exes = []
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if (m.get("reason") == "compiler-artifact" and m.get("executable")
            and m["profile"]["test"] and m["target"]["kind"] == ["bin"]):
        exes.append(m["executable"])
print(exes[-1] if exes else "")
EOF
    )
    [[ -n ${bin[$rt]} && -x ${bin[$rt]} ]] || die "the $rt build gave no bench executable (see $work/build-$rt.json)"
    echo "  $((SECONDS - start)) s: ${bin[$rt]}"
done

# 4. The rounds. forkjoin's global pool reads RAYON_NUM_THREADS as rayon does, but reads
#    its own FORKJOIN_NUM_THREADS first: that one (and rayon's old name) must not be set.
runs=$work/runs
rm -rf "$runs"
mkdir -p "$runs"
filter_args=()
[[ -n $filter ]] && filter_args=("$filter")
for rt in ry fj; do
    (cd "$work/$rt" && "${bin[$rt]}" --bench --list "${filter_args[@]}") >"$runs/list-$rt.txt" 2>&1 ||
        die "$rt: the bench binary could not list its benchmarks (see $runs/list-$rt.txt)"
done
count() { grep -cE ': bench(mark)?$' "$1" || true; }
echo "benchmarks selected: ry $(count "$runs/list-ry.txt"), fj $(count "$runs/list-fj.txt")"
manifest=$runs/runs.tsv
: >"$manifest"
for ((round = 1; round <= rounds; round++)); do
    order=(fj ry)
    ((round % 2 == 0)) && order=(ry fj)
    for t in "${thread_list[@]}"; do
        for rt in "${order[@]}"; do
            out=$runs/r$round-t$t-$rt.txt
            printf 'round %d/%d, %d threads, %s ... ' "$round" "$rounds" "$t" "$rt"
            start=$SECONDS
            rc=0
            (cd "$work/$rt" && env -u FORKJOIN_NUM_THREADS -u RAYON_RS_NUM_CPUS RAYON_NUM_THREADS="$t" \
                "${bin[$rt]}" --bench "${filter_args[@]}") >"$out" 2>&1 || rc=$?
            echo "$((SECONDS - start)) s, exit $rc"
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$t" "$rt" "$rc" "$((SECONDS - start))" "$out" >>"$manifest"
        done
    done
done

# 5. The table and the JSON (the metadata goes to python through its environment).
export RD_REPO=$repo RD_COMMIT=$commit RD_DESCRIBE=$describe RD_FJ=$root/forkjoin \
    RD_FJ_COMMIT=$fj_commit RD_FJ_DESCRIBE=$fj_describe RD_RUSTC=$rustc_nightly RD_CARGO=$nightly \
    RD_THREADS=$threads RD_ROUNDS=$rounds RD_FILTER=$filter RD_BIN_RY=${bin[ry]} RD_BIN_FJ=${bin[fj]}
python3 - "$runs" "$work/rayon-demo.json" <<'EOF'
import json, math, os, re, sys, time
runs_dir, json_path = sys.argv[1:]
env = os.environ
threads = [int(t) for t in env["RD_THREADS"].split(",")]
rounds = int(env["RD_ROUNDS"])
RTS = ("fj", "ry")

def listed(rt):
    names = []
    for line in open(f"{runs_dir}/list-{rt}.txt", errors="replace"):
        # `NAME: bench` (older nightlies) or `NAME: benchmark`.
        if m := re.fullmatch(r"(\S+): bench(?:mark)?", line.strip()):
            names.append(m.group(1))
    return names
lists = {rt: listed(rt) for rt in RTS}
benches = sorted(set(lists["fj"]) | set(lists["ry"]))

# libtest: `test NAME ... bench:   12,345.67 ns/iter (+/- 123)` (older nightlies: no
# decimals; newer ones pad NAME), `test NAME ... FAILED`.
BENCH = re.compile(r"test (\S+)\s+\.\.\. bench:\s+([\d,]+(?:\.\d+)?) ns/iter \(\+/- ([\d,]+(?:\.\d+)?)\)")
FAILED = re.compile(r"test (\S+)\s+\.\.\. FAILED")
num = lambda s: float(s.replace(",", ""))
runs = []
for line in open(f"{runs_dir}/runs.tsv"):
    rnd, t, rt, rc, secs, path = line.rstrip("\n").split("\t")
    results = {}
    for text in open(path, errors="replace"):
        if m := BENCH.search(text):
            results[m.group(1)] = {"ns": num(m.group(2)), "dev": num(m.group(3))}
        elif m := FAILED.search(text):
            results.setdefault(m.group(1), {"status": "failed"})
    for name in benches:
        if name not in results:
            results[name] = {"status": "not in binary" if name not in lists[rt] else "missing"}
    runs.append({"round": int(rnd), "threads": int(t), "runtime": rt, "exit_code": int(rc),
                 "seconds": int(secs), "output": os.path.relpath(path, runs_dir), "results": results})

def value(rt, rnd, t, name):
    for r in runs:
        if (r["runtime"], r["round"], r["threads"]) == (rt, rnd, t):
            return r["results"][name].get("ns")
    return None

summary, problems = {}, []
for name in benches:
    for t in threads:
        per = {rt: [value(rt, k, t, name) for k in range(1, rounds + 1)] for rt in RTS}
        best = {rt: min((v for v in per[rt] if v is not None), default=None) for rt in RTS}
        pairs = [f / r for f, r in zip(per["fj"], per["ry"]) if f is not None and r is not None and r > 0]
        entry = {"fj_min_ns": best["fj"], "ry_min_ns": best["ry"],
                 "ratio": best["fj"] / best["ry"] if best["fj"] is not None and best["ry"] else None,
                 "round_ratio_min": min(pairs, default=None), "round_ratio_max": max(pairs, default=None),
                 "fj_rounds_ns": per["fj"], "ry_rounds_ns": per["ry"]}
        summary.setdefault(name, {})[str(t)] = entry
        for rt in RTS:
            bad = [(k + 1, r["results"][name]["status"]) for k in range(rounds)
                   for r in runs if (r["runtime"], r["round"], r["threads"]) == (rt, k + 1, t)
                   and "status" in r["results"][name]]
            if bad:
                problems.append((name, t, rt, bad))

def fmt(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"
def ratio(x):
    return "-" if x is None else f"{x:.2f}"

def worst(name):
    rs = [summary[name][str(t)]["ratio"] for t in threads]
    rs = [r for r in rs if r is not None]
    return max(rs) if rs else math.inf   # no ratio at all: first, it is the worst news
width = max([len(n) for n in benches] + [9])
head = f"{'benchmark':<{width}}"
for t in threads:
    head += f" | {f't={t} fj':>10} {'ry':>10} {'fj/ry':>6} {'per round':>11}"
print()
print(f"rayon-demo, fj (forkjoin {env['RD_FJ_DESCRIBE']}) / ry (rayon 1.12.0); rayon's repository at "
      f"{env['RD_COMMIT'][:12]}; best ns/iter of {rounds} round(s)")
print(head)
print("-" * len(head))
incomplete = {(n, t) for n, t, _, _ in problems}
for name in sorted(benches, key=lambda n: (-worst(n), n)):
    line = f"{name:<{width}}"
    for t in threads:
        e = summary[name][str(t)]
        rng = ("-" if e["round_ratio_min"] is None
               else f"{e['round_ratio_min']:.2f}-{e['round_ratio_max']:.2f}")
        mark = "!" if (name, t) in incomplete else " "
        line += f" | {fmt(e['fj_min_ns']):>10} {fmt(e['ry_min_ns']):>10} {ratio(e['ratio']):>6}{mark}{rng:>11}"
    print(line)
print()
totals = {}
for t in threads:
    rs = [(summary[n][str(t)]["ratio"], n) for n in benches if summary[n][str(t)]["ratio"] is not None]
    gm = math.exp(sum(math.log(r) for r, _ in rs) / len(rs)) if rs else None
    above = sum(1 for r, _ in rs if r > 1.10)
    below = sum(1 for r, _ in rs if r < 1 / 1.10)
    totals[str(t)] = {"benchmarks": len(rs), "geomean": gm, "above_1.10": above, "below_0.91": below}
    print(f"{t} thread(s): {len(rs)} benchmarks compared, geometric mean fj/ry {ratio(gm)}, "
          f"{above} above 1.10x, {below} below 1/1.10x")
    for r, n in sorted(rs, reverse=True)[:10]:
        print(f"    {r:6.2f}  {n}")
crashed = [r for r in runs if r["exit_code"] != 0]
if problems or crashed:
    print()
    print("failed or missing (marked ! in the table; the rounds' outputs are in " + runs_dir + "):")
    for name, t, rt, bad in problems:
        print(f"    {name}, {t} thread(s), {rt}: " + ", ".join(f"round {k} {s}" for k, s in bad))
    for r in crashed:
        print(f"    the run {r['output']} exited with {r['exit_code']}")

report = {
    "rayon_repository": env["RD_REPO"], "rayon_commit": env["RD_COMMIT"], "rayon_describe": env["RD_DESCRIBE"],
    "forkjoin": env["RD_FJ"], "forkjoin_commit": env["RD_FJ_COMMIT"], "forkjoin_describe": env["RD_FJ_DESCRIBE"],
    "rustc": env["RD_RUSTC"], "cargo": env["RD_CARGO"], "rustflags": "", "profile": "bench (cargo's default)",
    "threads": threads, "rounds": rounds, "filter": env["RD_FILTER"] or None,
    "binaries": {"fj": env["RD_BIN_FJ"], "ry": env["RD_BIN_RY"]},
    "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    "benchmarks": benches, "runs": runs, "summary": summary, "totals": totals,
    "problems": [{"benchmark": n, "threads": t, "runtime": rt, "rounds": [{"round": k, "status": s} for k, s in bad]}
                 for n, t, rt, bad in problems],
}
with open(json_path, "w") as f:
    json.dump(report, f, indent=1)
print()
print(f"all per-round values: {json_path}")
EOF
