#!/usr/bin/env python3
"""Prices the suite's OWN mappings in ZigZag: for every layer/unrolling pair of the validation
(72: each distinct conv/FC layer of ResNet-50 and VGG-19 under KC-P and YX-P), ZigZag is given
the suite's temporal mapping of the layer (the buffer level's tile loops outermost, the array
level's loops of one tile inside them) instead of searching, and its cycles, bytes and energy
for that mapping go to
data/validation/zigzag_our_mappings.csv (settings: zigzag_our_mappings.settings.txt). A
developer's tool like zigzag_engine.py (same engine, same virtual environment).

    python3 tools/validate_dsa/zigzag_our_mappings.py [--venv DIR] [--test BINARY]

The suite's mappings are read from its validation test's per-layer lines
(DGS_VALIDATION_LAYERS=1 build/test_dsamodel --gtest_filter=DsaValidation.*): the buffer tile,
its loop order and reduction chunks, and the array level's inner pixel and output-channel trips
(and kernel columns, kc's sliding input window) and the order of the loops above them
(common/dsamodel/array_nest.h, buffer_nest.h). See tools/validate_dsa/README.md ("The same
mapping in both models").
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zigzag_engine as zz  # noqa: E402

OUT_CSV = os.path.join(zz.ROOT, "data", "validation", "zigzag_our_mappings.csv")
OUT_SETTINGS = os.path.join(zz.ROOT, "data", "validation", "zigzag_our_mappings.settings.txt")
LINE = re.compile(r"^layer (\w+) (\w+) (\S+) x(\d+): cycles ([\d.]+) dram_bytes ([\d.]+) .*"
                  r"\(ours: tile ([\d ]+), order ([^,]*), working set \d+, reload [^,]*, "
                  r"array P(\d+) K(\d+)(?: FX(\d+))? (\w{4}) steps (\d+), tiles (\d+)\)$")


def suite_lines(test):
    env = dict(os.environ, DGS_VALIDATION_LAYERS="1")
    out = subprocess.run([test, "--gtest_filter=DsaValidation.PerLayerAgainstZigZag"], env=env,
                         check=False, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            g = m.groups()
            rows.append({"dataflow": g[0], "network": g[1], "layer": g[2],
                         "cycles_ratio": float(g[4]), "dram_ratio": float(g[5]),
                         "tile": [int(x) for x in g[6].split()], "order": g[7],
                         "p_inner": int(g[8]), "k_inner": int(g[9]),
                         "fx_inner": int(g[10] or 1), "array_order": g[11],
                         "steps": int(g[12]), "tiles": int(g[13])})
    if not rows:
        sys.exit("no per-layer lines from %s (build test_dsamodel first)" % test)
    return rows


def split(dims, inner):
    """`inner` trips of the loop over `dims` ([(name, size)], innermost first) as inner loops and
    outer loops; exact when the trips factor over the dimensions."""
    ins, outs, left, exact = [], [], inner, True
    for name, size in dims:
        if left <= 1 or size <= 1:
            outs.append((name, size))
            continue
        if left % size == 0:
            ins.append((name, size))
            left //= size
        elif size % left == 0:
            ins.append((name, left))
            outs.append((name, size // left))
            left = 1
        else:
            g = math.gcd(size, left)
            exact = False
            if g > 1:
                ins.append((name, g))
            outs.append((name, size // g))
            left = 1
    if left > 1:
        exact = False
    return ins, outs, exact


def ceil_div(a, b):
    return -(-a // b)


def largest_divisor_at_most(n, cap):
    return max(d for d in range(1, max(1, min(n, cap)) + 1) if n % d == 0)


def ordering_of(r, key, e):
    """The suite's mapping of layer `key` as one ZigZag temporal ordering (inner to outer): the
    array loops over one buffer tile, then the buffer's tile loops. The suite runs each buffer
    tile as its own array nest, its folds rounded up per tile (array_nest.h, tiled_array_nest;
    buffer_nest.h); one ZigZag loop nest has one spatial unrolling for the whole layer, so a
    tile is counted in the array's folds of its dimension (a tile narrower than the array's
    unrolling of that dimension takes one fold, as it does in the suite, but ZigZag's folds are
    those of the whole dimension), and trip counts that do not divide their dimension take its
    nearest divisor below. Returns the ordering and whether it is exact (none of those
    adjustments was needed)."""
    kind, k, c, oy, ox, fy, fx = key[:7]
    kc = r["dataflow"] == "kc"
    spatial = {"K": e["columns"]} if kc else {"OX": e["columns"], "OY": e["rows"]}
    tile = r["tile"] if kind == "conv" else [1, r["tile"][-1], 1, 1]
    extent = {"K": k, "OY": oy, "OX": ox}
    tiled = {"K": tile[1], "OY": tile[2], "OX": tile[3]}
    axis_dim = {1: "K", 2: "OY", 3: "OX"}
    exact = True
    # Per tiled dimension: its temporal size in ZigZag (folds of the array's unrolling), a tile's
    # share of it, and the buffer's trips over it.
    per_tile, trips = {}, {}
    real_tiles = 1
    for d in ("K", "OY", "OX"):
        s_d = spatial.get(d, 1)
        total = ceil_div(extent[d], s_d)
        want = ceil_div(tiled[d], s_d)
        real_tiles *= ceil_div(extent[d], tiled[d])
        per_tile[d] = largest_divisor_at_most(total, want)
        trips[d] = total // per_tile[d]
        exact = exact and extent[d] % tiled[d] == 0 and (tiled[d] % s_d == 0 or tiled[d] ==
                                                         extent[d]) and per_tile[d] == want
    # The buffer's loops (inner to outer): "1>R>23" style names of output axes, R the reduction
    # chunks (where our order puts them, buffer_nest.h).
    names = r["order"].split(">") if r["order"] else []
    chunks = max(1, r["tiles"] // real_tiles) if "R" in names else 1
    c_total = ceil_div(c, e["rows"]) if kc else c
    c_chunks = largest_divisor_at_most(c_total, chunks)
    exact = exact and c_chunks == chunks
    buffer_loops = []
    for name in names:
        if name == "R":
            if c_chunks > 1:
                buffer_loops.append(("C", c_chunks))
            continue
        for axis in sorted(name, reverse=True):  # within a group: columns, rows, channels
            d = axis_dim.get(int(axis))
            if d and trips[d] > 1:
                buffer_loops.append((d, trips[d]))
    # The array loops over one tile (array_nest.h): kc: P = pixels, K = output-channel folds,
    # C = reduction folds, T = taps; yx: P = pixel folds, K, C channels, T taps. With the kernel
    # columns inner (kc's sliding input window, "FX3"): FX above the inner P and K, T = FY.
    p_dims = [("OX", per_tile["OX"]), ("OY", per_tile["OY"])]
    k_dims = [("K", per_tile["K"])]
    p_in, p_out, e1 = split(p_dims, r["p_inner"])
    k_in, k_out, e2 = split(k_dims, r["k_inner"])
    exact = exact and e1 and e2
    fx_in = [("FX", fx)] if r["fx_inner"] > 1 else []
    exact = exact and r["fx_inner"] in (1, fx)
    outer = {"P": p_out, "K": k_out, "C": [("C", c_total // c_chunks)],
             "T": ([] if fx_in else [("FX", fx)]) + [("FY", fy)]}
    loops = p_in + k_in + fx_in
    for ch in r["array_order"]:
        loops += outer[ch]
    loops += buffer_loops
    return [(d, n) for d, n in loops if n > 1], exact


def temporal_sizes(key, dataflow, e):
    """ZigZag's temporal loop sizes (engine.get_temporal_loops: the layer over the spatial
    unrolling, rounded up)."""
    kind, k, c, oy, ox, fy, fx = key[:7]
    sizes = {"K": k, "C": c, "OY": oy, "OX": ox, "FY": fy, "FX": fx}
    if dataflow == "kc":
        sizes["K"] = ceil_div(k, e["columns"])
        sizes["C"] = ceil_div(c, e["rows"])
    else:
        sizes["OX"] = ceil_div(ox, e["columns"])
        sizes["OY"] = ceil_div(oy, e["rows"])
    return {d: n for d, n in sizes.items() if n > 1}


def complete(loops, sizes):
    prod = {}
    for d, n in loops:
        prod[d] = prod.get(d, 1) * n
    return {d: n for d, n in prod.items() if n > 1} == sizes


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    zz.add_venv_arguments(ap, test=True)
    a = ap.parse_args()
    zz.run_in_venv(a.venv, __file__)
    import importlib.metadata as md
    with open(os.path.join(zz.ROOT, "hw_configs", "atomic_mesh.json")) as f:
        e = zz.engine_of(json.load(f))
    keys = {}
    for net in zz.NETWORKS:
        for key, name, count in zz.layers_of(net):
            keys[(net, name)] = (key, count)
    rows = []
    for r in suite_lines(a.test):
        key, count = keys[(r["network"], r["layer"])]
        loops, exact = ordering_of(r, key, e)
        sizes = temporal_sizes(key, r["dataflow"], e)
        if not complete(loops, sizes):
            sys.exit("%s %s %s: ordering %s does not cover %s" %
                     (r["dataflow"], r["network"], r["layer"], loops, sizes))
        t0 = time.time()
        res = zz.run_one((key, r["dataflow"], zz.OPT, e, loops))
        print("%s %s %s: %.1f s, %d cycles" % (r["dataflow"], r["network"], r["layer"],
                                               time.time() - t0, res["latency_cycles"]),
              file=sys.stderr)
        rows.append((r, key, count, loops, exact, res))
    version = md.version("zigzag-dse")
    source = ("ZigZag %s (zigzag-dse on PyPI) given the suite's mapping, "
              "tools/validate_dsa/zigzag_our_mappings.py" % version)
    metrics = ["latency_cycles", "ideal_cycles", "array_cycles", "stall_cycles", "onload_cycles",
               "offload_cycles", "utilisation", "mac_pj", "register_pj", "sram_pj", "dram_pj",
               "energy_pj", "sram_bytes", "dram_bytes", "temporal_mapping"]
    tmp = OUT_CSV + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["network", "layer", "count", "dataflow", "exact", "our_tile",
                    "our_order", "our_array", "given_ordering"] + metrics + ["source"])
        for r, key, count, loops, exact, res in rows:
            w.writerow([r["network"], r["layer"], count, r["dataflow"], int(exact),
                        " ".join(map(str, r["tile"])), r["order"] or "-",
                        "P%d K%d%s %s" % (r["p_inner"], r["k_inner"],
                                          " FX%d" % r["fx_inner"] if r["fx_inner"] > 1 else "",
                                          r["array_order"]),
                        " ".join("%s%d" % (d, n) for d, n in loops)] +
                       [("%.6g" % res[m]) if isinstance(res[m], float) else res[m]
                        for m in metrics] + [source])
    os.replace(tmp, OUT_CSV)
    with open(OUT_SETTINGS, "w") as f:
        f.write("# Written by tools/validate_dsa/zigzag_our_mappings.py; do not edit.\n")
        f.write("command: %s\n" % zz.command_line("zigzag_our_mappings.py", sys.argv[1:]))
        f.write("python: %s\n" % sys.version.split()[0])
        for p in ["zigzag-dse", "six", "onnx", "numpy"]:
            f.write("%s: %s\n" % (p, md.version(p)))
        f.write("engine and hardware: as zigzag_engine.settings.txt (the same functions)\n")
        f.write("mapping: the spatial mapping of zigzag_engine.py plus temporal_ordering = "
                "given_ordering (inner to outer; ZigZag's MemoryAllocator assigns the loops to "
                "registers, SRAM and DRAM, innermost first); opt %s (one mapping: no search)\n"
                % zz.OPT)
        f.write("layers: every layer/unrolling pair of the validation (%d)\n" % len(rows))
    print("wrote %s (%d rows) and %s" % (OUT_CSV, len(rows), OUT_SETTINGS))


if __name__ == "__main__":
    main()
