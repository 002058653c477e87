#!/usr/bin/env python3
"""Where a network total of the validation comes from, pair by pair: for each quantity asked,
every layer/unrolling pair's share of ZigZag's count-weighted network total, ours / ZigZag's
(the validation test's per-layer line), and its contribution to the total's gap (share x
(ours / ZigZag's - 1); the contributions sum to the total's ratio - 1 up to the 3 printed digits
of each ratio), with each side's mapping and ZigZag's own price of our mapping
(data/validation/zigzag_our_mappings.csv) against its own search's (zigzag_atomic_engine.csv).
Prints the tables of tools/validate_dsa/README.md ("The KC-P own-search misses, pair by pair").
A developer's tool: it needs no virtual environment (it reads the CSVs and runs the test).

    python3 tools/validate_dsa/own_search_gaps.py [--test BINARY] [--dataflow kc|yx]
        [--basis own|same|best] [--rows N] [resnet50:cycles vgg19:dram_bytes ...]

A quantity is cycles, dram_bytes or sram_pj; without any, the four KC-P own-search totals that
miss their goal today (ResNet-50 and VGG-19 cycles, VGG-19 DRAM bytes and SRAM energy). The basis
(--basis) is the test's: own (each model on its own search's mapping), same (ZigZag given ours;
"ours" in the last column is then the ratio shown) or best (per pair the lower energy x cycles by
ZigZag of its own search's mapping and ours).
"""
import argparse
import csv
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ENGINE_CSV = os.path.join(ROOT, "data", "validation", "zigzag_atomic_engine.csv")
OURS_CSV = os.path.join(ROOT, "data", "validation", "zigzag_our_mappings.csv")
COLUMN = {"cycles": "latency_cycles", "dram_bytes": "dram_bytes", "sram_pj": "sram_pj"}
DEFAULT = ["resnet50:cycles", "vgg19:cycles", "vgg19:dram_bytes", "vgg19:sram_pj"]
OWN = re.compile(r"^layer (\w+) (\w+) (\S+) x(\d+): cycles ([\d.]+) dram_bytes ([\d.]+) "
                 r"dram_pj [\d.]+ sram_pj ([\d.]+) .*\(ours: tile ([\d ]+), order ([^,]*), "
                 r".*array (P\d+ K\d+(?: FX\d+)? \w{4}) steps")
SAME = re.compile(r"^same mapping (\w+) (\w+) (\S+): cycles ([\d.]+) .*dram_bytes ([\d.]+) .*"
                  r"sram_pj ([\d.]+) \([\d.]+\) edp ([\d.]+)$")


def test_lines(test):
    env = dict(os.environ, DGS_VALIDATION_LAYERS="1")
    out = subprocess.run([test, "--gtest_filter=DsaValidation.*AgainstZigZag"], env=env,
                         check=False, capture_output=True, text=True).stdout
    own, same = {}, {}
    for line in out.splitlines():
        m = OWN.match(line)
        if m:
            d, net, layer, count, cyc, dram, sram, tile, order, array = m.groups()
            own[(d, net, layer)] = {"count": int(count), "cycles": float(cyc),
                                    "dram_bytes": float(dram), "sram_pj": float(sram),
                                    "tile": tile.split()[1:], "order": order, "array": array}
        m = SAME.match(line)
        if m:
            d, net, layer, cyc, dram, sram, edp = m.groups()
            same[(d, net, layer)] = {"cycles": float(cyc), "dram_bytes": float(dram),
                                     "sram_pj": float(sram), "edp": float(edp)}
    if not own or not same:
        sys.exit("no per-layer lines from %s (build test_dsamodel first)" % test)
    return own, same


def rows_of(path):
    with open(path, newline="") as f:
        return {(r["dataflow"], r["network"], r["layer"]): r for r in csv.DictReader(f)}


def output_loops(temporal_mapping):
    """ZigZag's loops of the output per level, registers | SRAM | DRAM."""
    o = re.search(r"O: \[(.*?)\], W:", temporal_mapping).group(1)
    levels = re.findall(r"\[([^\[\]]*)\]", o)
    return " \\| ".join("`%s`" % (" ".join("%s%s" % m for m in re.findall(r"\((\w+), (\d+)\)", lv))
                                or "-") for lv in levels)


def edp(row):
    return float(row["energy_pj"]) * float(row["latency_cycles"])


def table(net, quantity, a, own, same, engine, ours):
    """One total's table on basis a.basis: own (each model its own search's mapping), same
    (ZigZag given ours) or best (per pair the lower energy x cycles by ZigZag of the two, as the
    test's `best`)."""
    col = COLUMN[quantity]
    keys = [k for k in own if k[0] == a.dataflow and k[1] == net]
    use_same = {k: a.basis == "same" or (a.basis == "best" and edp(ours[k]) < edp(engine[k]))
                for k in keys}
    zz = {k: float((ours if use_same[k] else engine)[k][col]) for k in keys}
    ratio = {k: (same if use_same[k] else own)[k][quantity] for k in keys}
    weight = {k: own[k]["count"] * zz[k] for k in keys}
    total = sum(weight.values())
    share = {k: weight[k] / total for k in keys}
    contrib = {k: share[k] * (ratio[k] - 1) for k in keys}
    print("\n%s %s %s, %s: ours / ZigZag's %.3f from the pairs' 3-digit ratios (the test prints "
          "the total; the contributions sum to %+.3f)\n" % (
              a.dataflow, net, quantity, a.basis, sum(share[k] * ratio[k] for k in keys),
              sum(contrib.values())))
    print("| pair | share | ours / ZZ | contrib. | ZigZag's mapping (lpf) | ours | "
          "ZZ: ours / its own |")
    print("|---|---|---|---|---|---|---|")
    ranked = sorted(keys, key=lambda k: -abs(contrib[k]))
    for k in ranked[:a.rows]:
        o, s, e, z = own[k], same[k], engine[k], ours[k]
        tile = " x ".join(o["tile"])
        mapping = "ours" if use_same[k] else "%s (%s)" % (
            output_loops(e["temporal_mapping"]), e["lpf_limit"])
        print("| `%s`%s | %.3f | %.3f | %+.3f | %s | %s, `%s`, `%s` | %.3f (%s; ours %.3f; "
              "EDP %.3f) |" % (
                  k[2], " x%d" % o["count"] if o["count"] > 1 else "", share[k], ratio[k],
                  contrib[k], mapping, tile, o["order"] or "-", o["array"],
                  float(z[col]) / float(e[col]), "exact" if z["exact"] == "1" else "rounded",
                  s[quantity], s["edp"]))
    rest = ranked[a.rows:]
    if rest:
        print("| the other %d | %.3f | | %+.3f | | | |" % (
            len(rest), sum(share[k] for k in rest), sum(contrib[k] for k in rest)))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--test", default=os.path.join(ROOT, "build", "test_dsamodel"))
    ap.add_argument("--dataflow", default="kc", choices=["kc", "yx"])
    ap.add_argument("--basis", default="own", choices=["own", "same", "best"])
    ap.add_argument("--rows", type=int, default=6, help="pairs listed per table, by |contrib.|")
    ap.add_argument("totals", nargs="*", default=DEFAULT, help="network:quantity")
    a = ap.parse_args()
    own, same = test_lines(a.test)
    engine, ours = rows_of(ENGINE_CSV), rows_of(OURS_CSV)
    for t in a.totals:
        net, _, quantity = t.partition(":")
        if quantity not in COLUMN or net not in ("resnet50", "vgg19"):
            ap.error("%r: expected resnet50|vgg19:%s" % (t, "|".join(COLUMN)))
        table(net, quantity, a, own, same, engine, ours)


if __name__ == "__main__":
    main()
