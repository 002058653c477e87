#!/usr/bin/env python3
"""Prices every distinct conv/FC layer of ResNet-50 and VGG-19 on one engine of atomic_mesh with
ZigZag (a public loop-nest cost model, PyPI package zigzag-dse), under both unrollings (kc, yx),
and writes the results to data/validation/zigzag_atomic_engine.csv with the settings that made
them (data/validation/zigzag_atomic_engine.settings.txt). A developer's tool: the suite neither
depends on it nor runs it (its test, tests/dsamodel/validation_test.cpp, reads the CSV).

    python3 tools/validate_dsa/zigzag_engine.py [--venv DIR] [--layers N] [--jobs N]
        [--lpf-limit N] [--dataflows kc,yx] [--keep-best] [--stop-at HH:MM]

--lpf-limit sets the search effort of ZigZag's LOMA (its loop prime factors: above the limit it
merges the smallest factors of the dimension with the most, and searches every order of what is
left; ZigZag's default 6). --keep-best merges with the CSV already written: per pair it keeps the
row of lowest energy x cycles (ZigZag's own objective, opt EDP) among the limits run, so a pair
never gets a worse mapping by a change of the search effort; the columns lpf_limit (the limit
that found the row kept) and lpf_limits_run record it. The CSV is rewritten after every pair.
--stop-at (UTC, with --keep-best and one job) starts no pair after that time: the pair running
finishes and is written, the rest keep their rows (a later run with the same options resumes).

It creates a virtual environment (default build/validate_dsa_venv), installs the pinned ZigZag
into it and runs itself there. The engine is read from hw_configs/atomic_mesh.json and the
layers from the committed models/onnx/{resnet50,vgg19}.onnx (the suite's own graphs); see
tools/validate_dsa/README.md for how each part of the engine is set up in ZigZag.
"""
import argparse
import collections
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ZIGZAG = "zigzag-dse==3.9.1"
EXTRA = ["six==1.17.0"]  # zigzag-dse 3.9.1 imports six without declaring it
NETWORKS = ["resnet50", "vgg19"]
DATAFLOWS = ["kc", "yx"]
# ZigZag's search keeps the mapping with the least energy x latency, the suite's mappers' objective
# too (common/dsamodel/buffer_nest.h).
OPT = "EDP"
DEFAULT_LPF_LIMIT = 6  # ZigZag's own default (zigzag.api.get_hardware_performance_zigzag)
OUT_CSV = os.path.join(ROOT, "data", "validation", "zigzag_atomic_engine.csv")
OUT_SETTINGS = os.path.join(ROOT, "data", "validation", "zigzag_atomic_engine.settings.txt")


# --- the virtual environment (shared by the scripts of tools/validate_dsa) ---------------------

def add_venv_arguments(ap, test=False):
    """The options every script takes: --venv (where its virtual environment is) and, for those
    that read the suite's mappings from the validation test, --test (the test binary)."""
    ap.add_argument("--venv", default=os.path.join(ROOT, "build", "validate_dsa_venv"))
    if test:
        ap.add_argument("--test", default=os.path.join(ROOT, "build", "test_dsamodel"))


def in_venv(venv):
    return os.path.realpath(sys.prefix) == os.path.realpath(venv)


def ensure_venv(venv):
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", venv])
    subprocess.check_call([py, "-m", "pip", "install", "-q", ZIGZAG] + EXTRA)
    return py


def run_in_venv(venv, script):
    """Returns at once when this process runs in `venv`; otherwise creates it (with the pinned
    ZigZag installed) and replaces this process with `script` run there with the same arguments,
    so a script's code after this call always runs with ZigZag importable."""
    if in_venv(venv):
        return
    py = ensure_venv(venv)
    os.execv(py, [py, os.path.abspath(script)] + sys.argv[1:])


def command_line(script, argv):
    """The settings files' record of a run: `script` (relative to the repository) and its
    arguments, with paths inside the repository written relative to it and paths outside it
    (a venv or build elsewhere) as <outside>, so a rerun's settings file does not depend on
    where the checkout lies."""
    def relative(arg):
        if not os.path.isabs(arg):
            return arg
        rel = os.path.relpath(arg, ROOT)
        return "<outside>" if rel.startswith("..") else rel
    parts = []
    for arg in argv:
        if arg.startswith("--") and "=" in arg:
            key, value = arg.split("=", 1)
            parts.append(key + "=" + relative(value))
        else:
            parts.append(relative(arg))
    return " ".join(["python3", "tools/validate_dsa/" + script] + parts)


# --- the engine ---------------------------------------------------------------------------------

def field(cfg, name):
    return cfg["fields"][name]["value"]


def engine_of(cfg):
    """The numbers of one atomic_mesh engine, in the units ZigZag takes (bits, pJ per access)."""
    assert field(cfg, "datatype") == "int8"
    engines = field(cfg, "mesh_columns") * field(cfg, "mesh_rows")
    clock_mhz = field(cfg, "clock")
    dram_bytes_per_cycle = field(cfg, "dram_bandwidth") * 1e3 / clock_mhz / engines
    assert dram_bytes_per_cycle == int(dram_bytes_per_cycle)
    assert cfg["fields"]["local_buffer_size"]["unit"] == "KiB"
    return {
        "rows": field(cfg, "matrix_tile_rows"),
        "columns": field(cfg, "matrix_tile_columns"),
        "bits": 8,
        "psum_bits": 8 * field(cfg, "partial_sum_bytes"),
        "weight_registers": field(cfg, "pe_weight_registers"),
        "input_registers": field(cfg, "pe_input_registers"),
        "output_registers": field(cfg, "pe_output_registers"),
        "register_pj_per_bit": field(cfg, "register_energy"),
        "sram_bits": field(cfg, "local_buffer_size") * 1024 * 8,
        "sram_port_bits": int(8 * field(cfg, "local_buffer_bandwidth") * field(cfg, "local_buffer_ports")),
        "sram_pj_per_bit": field(cfg, "local_buffer_energy"),
        "dram_port_bits": int(8 * dram_bytes_per_cycle),
        "dram_pj_per_bit": field(cfg, "dram_energy"),
        "mac_pj": field(cfg, "mac_energy"),
    }


def memory(size_bits, word_bits, pj_per_bit, operands, served, allocations, rw_port=False,
           words_per_cycle=1):
    """A memory whose port moves `words_per_cycle` words of `word_bits` a cycle and whose
    access of one word costs `pj_per_bit` x word_bits. ZigZag counts the accesses of a port in
    units of its widest access (bandwidth_max: ceil(bits / bandwidth_min) x bandwidth_min /
    bandwidth_max per transfer period) and charges r_cost / w_cost for each, so the cost given is
    that of the widest access, pj_per_bit x word_bits x words_per_cycle (before, the cost of one
    word was given: YX-P's array-wide input register file, 256 words a cycle, was charged one
    word per 256 inputs read)."""
    bw = word_bits * words_per_cycle
    if rw_port:
        ports = [{"name": "rw_port_1", "type": "read_write", "bandwidth_min": word_bits,
                  "bandwidth_max": word_bits, "allocation": allocations}]
    else:
        reads = [a for a in allocations if a.endswith(("tl", "th"))]
        writes = [a for a in allocations if a.endswith(("fh", "fl"))]
        ports = [{"name": "r_port_1", "type": "read", "bandwidth_min": word_bits,
                  "bandwidth_max": bw, "allocation": reads},
                 {"name": "w_port_1", "type": "write", "bandwidth_min": word_bits,
                  "bandwidth_max": bw, "allocation": writes}]
    return {"size": int(size_bits), "r_cost": pj_per_bit * bw, "w_cost": pj_per_bit * bw,
            "area": 0, "latency": 1, "operands": operands, "ports": ports,
            "served_dimensions": served}


def hardware(e, dataflow):
    """ZigZag's description of one engine. D1 = the array's columns, D2 = its rows.
    kc: weights per PE; inputs per row (broadcast along the row, served over D1); partial sums
    per column (added down the column, served over D2). yx: weights broadcast to every PE
    (served over D1 and D2); partial sums per PE; the PEs' input registers as one file served
    over D1 and D2 (the PEs pass inputs to their neighbours, ShiDianNao's FIFOs, so a fold's
    input window is read once)."""
    b, pb, rf = e["bits"], e["psum_bits"], e["register_pj_per_bit"]
    every = ["I1, fh", "I1, tl", "I2, fh", "I2, tl", "O, fh", "O, tl", "O, fl", "O, th"]
    inputs, per_cycle = e["input_registers"], 1
    if dataflow == "kc":
        w_served, i_served, o_served = [], ["D1"], ["D2"]
    else:
        w_served, i_served, o_served = ["D1", "D2"], ["D1", "D2"], []
        inputs *= e["rows"] * e["columns"]
        per_cycle = e["rows"] * e["columns"]  # an input to every PE each cycle
    mems = {
        "weight_registers": memory(e["weight_registers"] * b, b, rf, ["I2"], w_served,
                                   ["I2, fh", "I2, tl"]),
        "input_registers": memory(inputs * b, b, rf, ["I1"], i_served,
                                  ["I1, fh", "I1, tl"], words_per_cycle=per_cycle),
        "output_registers": memory(e["output_registers"] * pb, pb, rf, ["O"], o_served,
                                   ["O, fh", "O, tl", "O, fl", "O, th"]),
        "sram": memory(e["sram_bits"], e["sram_port_bits"], e["sram_pj_per_bit"], ["I1", "I2", "O"],
                       ["D1", "D2"], every, rw_port=True),
        "dram": memory(1 << 35, e["dram_port_bits"], e["dram_pj_per_bit"], ["I1", "I2", "O"],
                       ["D1", "D2"], every, rw_port=True),
    }
    return {"name": "atomic_mesh_engine_" + dataflow, "memories": mems,
            "operational_array": {"unit_energy": e["mac_pj"], "unit_area": 1,
                                  "dimensions": ["D1", "D2"],
                                  "sizes": [e["columns"], e["rows"]]}}


def mapping(e, dataflow, temporal_ordering=None):
    """KC-Partition: output channels over the columns (D1), input channels over the rows (D2).
    YX-Partition: output columns (OX) over D1, output rows (OY) over D2 (an FC layer has
    OX = OY = 1, as the Atomic Dataflow paper's footnote sets). With `temporal_ordering` (a
    complete list of [dimension, size] loops, inner to outer), ZigZag prices that one temporal
    mapping (its memory allocator assigns the loops to the levels) instead of searching."""
    if dataflow == "kc":
        sm = {"D1": ["K, %d" % e["columns"]], "D2": ["C, %d" % e["rows"]]}
    else:
        sm = {"D1": ["OX, %d" % e["columns"]], "D2": ["OY, %d" % e["rows"]]}
    m = {"name": "default", "spatial_mapping": sm,
         "memory_operand_links": {"O": "O", "W": "I2", "I": "I1"}}
    if temporal_ordering:
        m["temporal_ordering"] = [[d, int(n)] for d, n in temporal_ordering]
    return [m]


# --- the layers ---------------------------------------------------------------------------------

def layers_of(network):
    """Distinct Conv and Gemm layers of models/onnx/<network>.onnx: (key, first name, count)."""
    import onnx
    model = onnx.shape_inference.infer_shapes(onnx.load(os.path.join(ROOT, "models", "onnx",
                                                                     network + ".onnx")))
    shapes = {}
    for v in list(model.graph.input) + list(model.graph.value_info) + list(model.graph.output):
        shapes[v.name] = [d.dim_value for d in v.type.tensor_type.shape.dim]
    found = collections.OrderedDict()
    for node in model.graph.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Conv":
            n, c, ih, iw = shapes[node.input[0]]
            k, cg, fy, fx = shapes[node.input[1]]
            _, _, oy, ox = shapes[node.output[0]]
            s = attrs.get("strides", [1, 1])
            p = attrs.get("pads", [0, 0, 0, 0])
            assert attrs.get("group", 1) == 1 and s[0] == s[1] and n == 1
            key = ("conv", k, c, oy, ox, fy, fx, s[0], p[0], p[1], p[2], p[3], ih, iw)
        elif node.op_type == "Gemm":
            m, c = shapes[node.input[0]]
            k = shapes[node.output[0]][1]
            assert m == 1 and attrs.get("transA", 0) == 0
            key = ("fc", k, c, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1)
        else:
            continue
        if key in found:
            found[key][1] += 1
        else:
            found[key] = [node.name, 1]
    return [(k, v[0], v[1]) for k, v in found.items()]


def zigzag_layer(key):
    kind, k, c, oy, ox, fy, fx, s, pt, pl, pb, pr, ih, iw = key
    return {"id": 0, "name": "layer", "operator_type": "Conv",
            "equation": "O[b][k][oy][ox]+=W[k][c][fy][fx]*I[b][c][iy][ix]",
            "dimension_relations": ["ix=%d*ox+1*fx" % s, "iy=%d*oy+1*fy" % s],
            "loop_dims": ["B", "K", "C", "OY", "OX", "FY", "FX"],
            "loop_sizes": [1, k, c, oy, ox, fy, fx],
            "operand_precision": {"W": 8, "I": 8, "O": 32, "O_final": 8},
            "operand_source": {"I": 0},
            "pr_loop_dims": ["IX", "IY"], "pr_loop_sizes": [iw, ih],
            "padding": [[pl, pr], [pt, pb]]}


def loma_orders(key, dataflow, e, lpf_limit):
    """How many loop orders ZigZag's LOMA evaluates for this pair at this limit (its own count,
    LomaEngine.compute_nb_permutations, after the spatial unrolling and the merging of factors
    above the limit): the search's cost is about proportional to it."""
    from zigzag.opt.loma.engine import LomaEngine
    kind, k, c, oy, ox, fy, fx = key[:7]
    sizes = {"K": k, "C": c, "OY": oy, "OX": ox, "FY": fy, "FX": fx}
    if dataflow == "kc":
        spatial = {"K": e["columns"], "C": e["rows"]}
    else:
        spatial = {"OX": e["columns"], "OY": e["rows"]}
    for d, n in spatial.items():
        sizes[d] = -(-sizes[d] // n)
    sizes = {d: n for d, n in sizes.items() if n > 1}
    engine = object.__new__(LomaEngine)  # only the factor and order counting of LOMA
    engine.temporal_loop_dim_size, engine.lpf_limit = sizes, lpf_limit
    engine.has_constraints, engine.constraints, engine.layer = False, [], key
    engine.update_min_lpf_factor(sizes)
    engine.get_prime_factors()
    return engine.nb_permutations


# --- running ZigZag -----------------------------------------------------------------------------

def run_one(args):
    key, dataflow, opt, e = args[:4]
    ordering = args[4] if len(args) > 4 else None
    lpf_limit = args[5] if len(args) > 5 else DEFAULT_LPF_LIMIT
    import logging
    logging.disable(logging.CRITICAL)
    import yaml
    from zigzag.api import get_hardware_performance_zigzag
    with tempfile.TemporaryDirectory() as tmp:
        hw_file, map_file = os.path.join(tmp, "hw.yaml"), os.path.join(tmp, "map.yaml")
        with open(hw_file, "w") as f:
            yaml.safe_dump(hardware(e, dataflow), f, sort_keys=False)
        with open(map_file, "w") as f:
            yaml.safe_dump(mapping(e, dataflow, ordering), f, sort_keys=False)
        energy, latency, cmes = get_hardware_performance_zigzag(
            [zigzag_layer(key)], hw_file, map_file, opt=opt, dump_folder=os.path.join(tmp, "out"),
            loma_show_progress_bar=False, lpf_limit=lpf_limit)
    cme = cmes[0][1][0][0]
    # Per level (0 registers, 1 SRAM, 2 DRAM): energy and bits moved, summed over the operands.
    level_pj = [0.0, 0.0, 0.0]
    level_bits = [0.0, 0.0, 0.0]
    words = {0: 0, 1: e["sram_port_bits"], 2: e["dram_port_bits"]}
    for op, per_level in cme.mem_energy_breakdown.items():
        for lv, pj in enumerate(per_level):
            level_pj[lv] += pj
    for op, accesses in cme.memory_word_access.items():
        for lv, a in enumerate(accesses):
            if lv == 0:
                continue
            total = sum(a.get(d) for d in a.data)
            level_bits[lv] += total * words[lv]
    return {
        "latency_cycles": latency,
        "ideal_cycles": cme.ideal_cycle,
        "array_cycles": cme.ideal_temporal_cycle,
        "stall_cycles": cme.stall_slack_comb,
        "onload_cycles": cme.data_onloading_cycle,
        "offload_cycles": cme.data_offloading_cycle,
        "utilisation": cme.mac_utilization2,
        "mac_pj": cme.mac_energy,
        "register_pj": level_pj[0],
        "sram_pj": level_pj[1],
        "dram_pj": level_pj[2],
        "energy_pj": energy,
        "sram_bytes": level_bits[1] / 8,
        "dram_bytes": level_bits[2] / 8,
        "temporal_mapping": str(cme.temporal_mapping).replace("\n", " "),
    }


COLUMNS = ["network", "layer", "count", "kind", "k", "c", "oy", "ox", "fy", "fx", "stride",
           "pad_top", "pad_left", "pad_bottom", "pad_right", "ih", "iw", "dataflow", "opt"]
METRICS = ["latency_cycles", "ideal_cycles", "array_cycles", "stall_cycles", "onload_cycles",
           "offload_cycles", "utilisation", "mac_pj", "register_pj", "sram_pj", "dram_pj",
           "energy_pj", "sram_bytes", "dram_bytes", "temporal_mapping"]
HEADER = COLUMNS + METRICS + ["lpf_limit", "lpf_limits_run", "source"]


def read_rows():
    """The CSV already written, by (network, layer, dataflow): a dict of column -> text. Rows
    written before the lpf_limit column came from ZigZag's default limit."""
    if not os.path.exists(OUT_CSV):
        return {}
    with open(OUT_CSV, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r.setdefault("lpf_limit", str(DEFAULT_LPF_LIMIT))
        r.setdefault("lpf_limits_run", r["lpf_limit"])
    return {(r["network"], r["layer"], r["dataflow"]): r for r in rows}


def weight(rows, net, name, dataflow):
    """A pair's share of its network's total cycles (count-weighted) in ZigZag's rows already
    written under this dataflow (0 without them)."""
    def cycles(r):
        return float(r["count"]) * float(r["latency_cycles"])
    total = sum(cycles(r) for k, r in rows.items() if k[0] == net and k[2] == dataflow)
    row = rows.get((net, name, dataflow))
    return cycles(row) / total if row and total else 0.0


def edp(row):
    return float(row["energy_pj"]) * float(row["latency_cycles"])


def row_of(net, name, count, key, dataflow, opt, r, lpf, source):
    kind, k, c, oy, ox, fy, fx, s, pt, pl, pb, pr, ih, iw = key
    values = [net, name, count, kind, k, c, oy, ox, fy, fx, s, pt, pl, pb, pr, ih, iw, dataflow,
              opt] + [("%.6g" % r[m]) if isinstance(r[m], float) else r[m] for m in METRICS]
    row = dict(zip(COLUMNS + METRICS, [str(v) for v in values]))
    row.update({"lpf_limit": str(lpf), "lpf_limits_run": str(lpf), "source": source})
    return row


def kept(old, new):
    """The row of lower energy x cycles (the old one on a tie), with every limit run listed."""
    if old is None:
        return new
    best = dict(new if edp(new) < edp(old) else old)
    limits = set(old["lpf_limits_run"].split(" ")) | {new["lpf_limit"]}
    best["lpf_limits_run"] = " ".join(sorted(limits, key=int))
    return best


def write_rows(rows, order):
    tmp = OUT_CSV + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        for k in order:
            w.writerow([rows[k][c] for c in HEADER])
    os.replace(tmp, OUT_CSV)


def write_settings(e, a, earlier, progress):
    import importlib.metadata as md
    import yaml
    with open(OUT_SETTINGS, "w") as f:
        f.write("# Written by tools/validate_dsa/zigzag_engine.py; do not edit.\n")
        for line in earlier:
            f.write(line)
        f.write("command: %s\n" % command_line("zigzag_engine.py", sys.argv[1:]))
        f.write("pairs searched by this run: %s (the CSV is rewritten after each; a pair's "
                "lpf_limits_run lists the limits it was searched at)\n" % progress)
        f.write("python: %s\n" % sys.version.split()[0])
        for p in ["zigzag-dse", "six", "onnx", "numpy"]:
            f.write("%s: %s\n" % (p, md.version(p)))
        f.write("engine (from hw_configs/atomic_mesh.json): %s\n" % json.dumps(e, sort_keys=True))
        f.write("ZigZag search: LOMA temporal mappings (lpf_limit %d this run, dataflows %s; "
                "ZigZag's default 6), the given spatial mapping; opt %s (the least energy x "
                "latency)%s%s\n" % (a.lpf_limit, ",".join(a.dataflows), OPT,
                                  "; only the pairs of at most %d LOMA loop orders at this limit"
                                  % a.max_orders if a.max_orders else "",
                                  "; per pair the row of least energy x latency of the limits "
                                  "run is kept (columns lpf_limit, lpf_limits_run)"
                                  if a.keep_best else ""))
        for dataflow in DATAFLOWS:
            f.write("\n--- hardware (%s) ---\n" % dataflow)
            f.write(yaml.safe_dump(hardware(e, dataflow), sort_keys=False))
            f.write("--- mapping (%s) ---\n" % dataflow)
            f.write(yaml.safe_dump(mapping(e, dataflow), sort_keys=False))


def earlier_runs():
    """The command and search lines of the settings already written (a --keep-best run merges
    with their rows)."""
    if not os.path.exists(OUT_SETTINGS):
        return []
    with open(OUT_SETTINGS) as f:
        lines = [ln for ln in f if ln.startswith(("command:", "ZigZag search:", "earlier run:",
                                                  "pairs searched"))]
    return [ln if ln.startswith("earlier run:") else "earlier run: " + ln for ln in lines]


def stop_deadline(hhmm, now):
    """The first moment at or after `now` (seconds since the epoch) whose UTC clock reads `hhmm`
    ("HH:MM"): a time earlier in the day than `now` means tomorrow's. None if `hhmm` is not one."""
    m = re.fullmatch(r"([01][0-9]|2[0-3]):([0-5][0-9])", hhmm)
    if not m:
        return None
    day = now - now % 86400
    t = day + int(m.group(1)) * 3600 + int(m.group(2)) * 60
    return t if t >= now else t + 86400


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_venv_arguments(ap)
    ap.add_argument("--layers", type=int, default=0, help="at most this many layers per network")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--lpf-limit", type=int, default=DEFAULT_LPF_LIMIT,
                    help="LOMA's loop prime factor limit (ZigZag's default 6)")
    ap.add_argument("--dataflows", default=",".join(DATAFLOWS), help="kc, yx or kc,yx")
    ap.add_argument("--max-orders", type=int, default=0,
                    help="run only the pairs whose LOMA search has at most this many loop orders "
                         "at this limit (with --keep-best; 0: every pair)")
    ap.add_argument("--keep-best", action="store_true",
                    help="per pair, keep the CSV's row where it has the lower energy x cycles")
    ap.add_argument("--stop-at", default="",
                    help="HH:MM (UTC): start no pair after it (with --keep-best and --jobs 1)")
    a = ap.parse_args()
    if a.stop_at and not (a.keep_best and a.jobs == 1):
        ap.error("--stop-at needs --keep-best and --jobs 1")
    a.deadline = stop_deadline(a.stop_at, time.time()) if a.stop_at else None
    if a.stop_at and a.deadline is None:
        ap.error("--stop-at %r: expected HH:MM (UTC, 00:00-23:59)" % a.stop_at)
    a.dataflows = a.dataflows.split(",")
    if not all(d in DATAFLOWS for d in a.dataflows):
        ap.error("--dataflows %r: each of %s" % (",".join(a.dataflows), ",".join(DATAFLOWS)))
    run_in_venv(a.venv, __file__)

    import importlib.metadata as md
    with open(os.path.join(ROOT, "hw_configs", "atomic_mesh.json")) as f:
        cfg = json.load(f)
    e = engine_of(cfg)
    old = read_rows() if a.keep_best else {}
    jobs, pairs, order = [], [], []
    for net in NETWORKS:
        for i, (key, name, count) in enumerate(layers_of(net)):
            run = not a.layers or i < a.layers
            for dataflow in DATAFLOWS:
                if run or a.keep_best:  # a --keep-best run rewrites every row
                    order.append((net, name, dataflow))
                orders = loma_orders(key, dataflow, e, a.lpf_limit)
                cheap = not a.max_orders or orders <= a.max_orders
                # A --keep-best run resumes: a pair already run at this limit is not run again.
                done_before = str(a.lpf_limit) in old.get((net, name, dataflow), {}).get(
                    "lpf_limits_run", "").split(" ")
                if run and cheap and not done_before and dataflow in a.dataflows:
                    rank = (-weight(old, net, name, dataflow), orders, len(jobs))
                    jobs.append((rank, (key, dataflow, OPT, e, None, a.lpf_limit)))
                    pairs.append((rank, (net, name, count, key, dataflow, OPT)))
    # The pairs that weigh most in ZigZag's network totals first (then the cheapest searches), so
    # that a run stopped early has run those; each pair's row is written as it finishes.
    jobs = [j for _, j in sorted(jobs, key=lambda x: x[0])]
    pairs = [p for _, p in sorted(pairs, key=lambda x: x[0])]
    earlier = earlier_runs() if a.keep_best else []
    run_keys = set((p[0], p[1], p[4]) for p in pairs)
    missing = [k for k in order if k not in run_keys and k not in old]
    assert not missing, "no row to keep for %s: run those pairs too" % (missing[:3],)
    rows = {k: old[k] for k in order if k in old}
    source = "ZigZag %s (zigzag-dse on PyPI), tools/validate_dsa/zigzag_engine.py" % (
        md.version("zigzag-dse"))

    finished = []

    def done(pair, r):
        net, name, count, key, dataflow, opt = pair
        k = (net, name, dataflow)
        rows[k] = kept(old.get(k), row_of(net, name, count, key, dataflow, opt, r, a.lpf_limit,
                                          source))
        finished.append(k)
        if all(k in rows for k in order):  # every pair has a row: the CSV is whole
            write_rows(rows, order)
            write_settings(e, a, earlier, "%d of %d" % (len(finished), len(pairs)))

    if a.jobs > 1:
        import multiprocessing
        with multiprocessing.Pool(a.jobs) as pool:
            for pair, r in zip(pairs, pool.imap(run_one, jobs)):
                done(pair, r)
    else:
        for i, j in enumerate(jobs):
            if a.deadline is not None and time.time() >= a.deadline:
                print("stopped at %s UTC before pair %d of %d (--stop-at)" % (
                    a.stop_at, i + 1, len(jobs)), file=sys.stderr, flush=True)
                a.stopped = "; stopped by --stop-at %s UTC before %s" % (a.stop_at, pairs[i][1])
                break
            print("%d/%d %s %s %s lpf %d" % (i + 1, len(jobs), pairs[i][1], j[1], j[2],
                                             a.lpf_limit), file=sys.stderr, flush=True)
            done(pairs[i], run_one(j))
    write_rows(rows, order)
    write_settings(e, a, earlier, "%d of %d%s" % (len(finished), len(pairs),
                                                getattr(a, "stopped", "")))
    print("wrote %s (%d rows) and %s" % (OUT_CSV, len(rows), OUT_SETTINGS))


if __name__ == "__main__":
    main()
