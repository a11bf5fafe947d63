#!/usr/bin/env python3
"""Compares rayon's public API with forkjoin's, from rustdoc's JSON output.

Usage: rayon-api.py RAYON_JSON RAYON_CORE_JSON FORKJOIN_JSON

Every public item reachable from rayon's and rayon-core's roots (through modules and
re-exports) must exist at the same path in forkjoin (which answers to both names), of the
same kind (a type alias counts as the type it names), with the same methods, associated
items, enum variants and implemented traits. Every function and method must take as many
parameters and type parameters, and return or not, as rayon's. Every implementation of a
rayon trait, on rayon's types or on std's (`FromParallelIterator<char> for String`, ...),
must exist for the same type. Prints what is missing and exits 1 if anything is.
"""
import json
import sys

NAMES = ("rayon", "rayon_core", "forkjoin")
docs = {name: json.load(open(path)) for name, path in zip(NAMES, sys.argv[1:4])}


def kind(item):
    return next(iter(item["inner"]))


def item(doc, id_):
    return docs[doc]["index"].get(str(id_))


def by_path(doc, path):
    """The item of crate `doc` at `path` (without the crate's name)."""
    for id_, p in docs[doc]["paths"].items():
        if p["crate_id"] == 0 and p["path"][1:] == path:
            return docs[doc]["index"].get(id_)
    return docs[doc]["index"][str(docs[doc]["root"])] if not path else None


def resolve_use(doc, target_id):
    """Where a `pub use` leads: (crate, item), following it into rayon-core from rayon."""
    target = item(doc, target_id)
    if target is not None:
        return doc, target
    p = docs[doc]["paths"].get(str(target_id))
    if p is None:
        return None
    crate = docs[doc]["external_crates"][str(p["crate_id"])]["name"]
    if crate not in docs:
        return None
    target = by_path(crate, p["path"][1:])
    return (crate, target) if target is not None else None


def walk(doc, module, prefix, out):
    """Every public item under `module`, by path: {path: (crate, item)}."""
    for child_id in item(doc, module["id"])["inner"]["module"]["items"]:
        child = item(doc, child_id)
        if child is None or child.get("visibility") != "public":
            continue
        if kind(child) == "use":
            use = child["inner"]["use"]
            found = use["id"] is not None and resolve_use(doc, use["id"])
            if not found:
                continue
            tdoc, target = found
            if use["is_glob"]:
                if kind(target) == "module":
                    walk(tdoc, target, prefix, out)
                continue
            path = prefix + (use["name"],)
        else:
            tdoc, target, path = doc, child, prefix + (child["name"],)
        out[path] = (tdoc, target)
        if kind(target) == "module":
            walk(tdoc, target, path, out)


def api(doc):
    out = {}
    walk(doc, docs[doc]["index"][str(docs[doc]["root"])], (), out)
    return out


def unalias(doc, it):
    """A type alias stands for the type it names (forkjoin's `ThreadPool = Pool`)."""
    if kind(it) == "type_alias":
        target = it["inner"]["type_alias"]["type"].get("resolved_path")
        if target and item(doc, target["id"]):
            return item(doc, target["id"])
    return it


def opaque(it):
    """A struct with no public field: a program can only use its methods and traits, so an
    enum with the same methods and traits serves it (forkjoin's `BuildError`)."""
    shape = it["inner"].get("struct", {}).get("kind", {})
    return "plain" in shape and not shape["plain"]["fields"]


def own_impls(doc, it):
    """The non-synthetic, non-blanket impls of a struct, enum or union."""
    for id_ in it["inner"][kind(it)].get("impls", []):
        im = item(doc, id_)
        if im and not im["inner"]["impl"].get("is_synthetic") and not im["inner"]["impl"].get("blanket_impl"):
            yield im["inner"]["impl"]


def members(doc, it):
    """Names of associated items, inherent methods, variants and implemented traits."""
    k, res = kind(it), set()
    if k == "trait":
        res |= {("item", item(doc, i)["name"]) for i in it["inner"]["trait"]["items"] if item(doc, i)}
    if k in ("struct", "enum", "union"):
        for imp in own_impls(doc, it):
            if imp["trait"] is None:
                res |= {("method", m["name"]) for m in map(lambda i: item(doc, i), imp["items"])
                        if m and m.get("visibility") == "public"}
            else:
                res.add(("impl", imp["trait"]["path"].split("::")[-1]))
        if k == "enum":
            res |= {("variant", item(doc, v)["name"]) for v in it["inner"]["enum"]["variants"] if item(doc, v)}
    return res


def shapes(doc, it):
    """{function name: (parameters, type parameters, returns nothing)} of an item."""
    found = []
    k = kind(it)
    if k == "function":
        found = [it]
    elif k == "trait":
        found = [item(doc, i) for i in it["inner"]["trait"]["items"]]
    elif k in ("struct", "enum"):
        found = [item(doc, i) for imp in own_impls(doc, it) if imp["trait"] is None for i in imp["items"]]
    res = {}
    for f in found:
        if f and kind(f) == "function" and (k != "struct" and k != "enum" or f.get("visibility") == "public"):
            fn = f["inner"]["function"]
            type_params = [g for g in fn["generics"]["params"] if "type" in g["kind"]]
            res[f["name"]] = (len(fn["sig"]["inputs"]), len(type_params), fn["sig"]["output"] is None)
    return res


def type_name(doc, t):
    """A type, written with its generic parameters as G and the module it is named from
    (`range::Iter<G>`, not `slice::Iter<G>`), enough to tell impls apart."""
    k, v = next(iter(t.items()))
    if k == "resolved_path":
        name = public_name(doc, v["id"]) or v["path"].split("::")[-1]
        args = (v.get("args") or {}).get("angle_bracketed", {}).get("args", [])
        args = [type_name(doc, a["type"]) for a in args if "type" in a]
        return name + ("<" + ",".join(args) + ">" if args else "")
    if k == "borrowed_ref":
        return "&" + ("mut " if v["is_mutable"] else "") + type_name(doc, v["type"])
    if k == "tuple":
        return "(" + ",".join(type_name(doc, x) for x in v) + ")"
    if k == "slice":
        return "[" + type_name(doc, v) + "]"
    if k == "array":
        return "[" + type_name(doc, v["type"]) + ";N]"
    return {"primitive": v, "generic": "G"}.get(k, k)


def public_name(doc, id_):
    """The shortest public path of a type of the three crates (`iter::Copied`, wherever
    it is defined), or None for other crates' types."""
    if item(doc, id_) is None:
        found = resolve_use(doc, id_)
        if not found:
            return None
        doc, id_ = found[0], found[1]["id"]
    return PUBLIC.get((doc, id_))


def implementations(doc, trait):
    res = set()
    for id_ in trait["inner"]["trait"].get("implementations", []):
        im = item(doc, id_)
        if not im:
            continue
        imp = im["inner"]["impl"]
        args = ((imp["trait"] or {}).get("args") or {}).get("angle_bracketed", {}).get("args", [])
        args = ",".join(type_name(doc, a["type"]) for a in args if "type" in a)
        res.add((f"<{args}>" if args else "") + " for " + type_name(doc, imp["for"]))
    return res


APIS = {crate: api(crate) for crate in NAMES}
PUBLIC = {}
for crate in NAMES:
    for path, (doc, it) in sorted(APIS[crate].items(), key=lambda p: (len(p[0]), p[0]), reverse=True):
        PUBLIC[(doc, it["id"])] = "::".join(path)
forkjoin = APIS["forkjoin"]
problems, counts = [], {}
for crate in ("rayon", "rayon_core"):
    theirs = APIS[crate]
    counts[crate] = len(theirs)
    for path, (doc, it) in sorted(theirs.items()):
        name = "::".join((crate,) + path)
        if path not in forkjoin:
            problems.append(f"missing: {name} ({kind(it)})")
            continue
        fdoc, ours = forkjoin[path]
        ours = unalias(fdoc, ours)
        if kind(ours) != kind(it) and not (opaque(it) and kind(ours) == "enum"):
            problems.append(f"a {kind(ours)}, not a {kind(it)}: {name}")
            continue
        for what, x in sorted(members(doc, it) - members(fdoc, ours)):
            problems.append(f"missing {what}: {name}: {x}")
        ours_shapes = shapes(fdoc, ours)
        for fn, shape in sorted(shapes(doc, it).items()):
            if fn in ours_shapes and ours_shapes[fn] != shape:
                problems.append(f"different signature: {name}::{fn}: rayon {shape}, forkjoin {ours_shapes[fn]}"
                                " (parameters, type parameters, returns nothing)")
        if kind(it) == "trait":
            for x in sorted(implementations(doc, it) - implementations(fdoc, ours)):
                problems.append(f"missing impl: {name}{x}")

for p in problems:
    print(p)
print(f"rayon's public API: {counts['rayon']} items of rayon 1.12.0 and {counts['rayon_core']} of "
      f"rayon-core 1.13.0 compared with forkjoin's {len(forkjoin)}: {len(problems)} missing or different")
sys.exit(1 if problems else 0)
