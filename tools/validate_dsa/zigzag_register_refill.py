#!/usr/bin/env python3
"""Where ZigZag's stalls on the suite's own KC-P mappings come from, and how much of them is its
register-level double-buffer rule (tools/validate_dsa/README.md, "Where the two models differ on
the same mapping", (g)). A developer's tool: it writes nothing, it prints.

    python3 tools/validate_dsa/zigzag_register_refill.py [--venv DIR] [--test BINARY]

For every KC-P row of data/validation/zigzag_our_mappings.csv it prices the given ordering in
ZigZag three times:
  as is: ZigZag 3.9.1 unchanged (CostModelEvaluation.calc_double_buffer_flag: a memory level is
    double-buffered only when the operand's effective data takes at most half of it; otherwise
    calculate_allowed_transfer_cycles gives each refill the window period / top_ir_loop_size,
    the last pass of the irrelevant loops at the top of the level);
  double-buffered: the register level (each operand's lowest) flagged double-buffered, as if the
    registers held two sets: only the port's total traffic bounds the array, as in the suite
    before its refill stall (dsa23u);
  prefetch: registers holding a set of w in R (R/2 < w <= R) take the next set's first R - w
    into their spare registers while the set is in use; only the other 2w - R of each refill (of
    the bytes both ways) must cross the port in ZigZag's window.
It prints per pair the port activities that stall (operand, level, direction: (real - allowed
cycles) x (periods - 1)), the register level's use per operand, the suite's cycles over each
ZigZag latency (the suite's from the validation test's same-mapping lines), and the
count-weighted network totals.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zigzag_engine as zz  # noqa: E402
import zigzag_our_mappings as ours  # noqa: E402

SAME = re.compile(r"^same mapping kc (\w+) (\S+): cycles ([\d.]+) ")
MODES = ["as is", "double-buffered", "prefetch"]


def suite_cycles_ratio(test):
    """(network, layer) -> the suite's cycles / ZigZag's on the same mapping (KC-P)."""
    env = dict(os.environ, DGS_VALIDATION_LAYERS="1")
    out = subprocess.run([test, "--gtest_filter=DsaValidation.SameMappingAgainstZigZag"], env=env,
                         check=False, capture_output=True, text=True).stdout
    ratio = {}
    for line in out.splitlines():
        m = SAME.match(line)
        if m:
            ratio[(m.group(1), m.group(2))] = float(m.group(3))
    if not ratio:
        sys.exit("no same-mapping lines from %s (build test_dsamodel first)" % test)
    return ratio


def patch_zigzag(state):
    """Wraps ZigZag's register-level rules; state["mode"] picks one of MODES, state["cme"] keeps
    the last evaluation."""
    import zigzag.cost_model.cost_model as cm
    from zigzag.hardware.architecture.memory_port import DataDirection
    flag, allowed_of = cm.CostModelEvaluation.calc_double_buffer_flag, \
        cm.CostModelEvaluation.calculate_allowed_transfer_cycles
    latency = cm.CostModelEvaluation.calc_latency
    low = (DataDirection.RD_OUT_TO_LOW, DataDirection.WR_IN_BY_LOW)

    def calc_double_buffer_flag(self):
        flag(self)
        if state["mode"] == "double-buffered":
            for op in self.double_buffer_true:  # [0]: the MAC array, [1]: the registers
                self.double_buffer_true[op][1] = True

    def calculate_allowed_transfer_cycles(self, layer_op, mem_lv):
        allowed = allowed_of(self, layer_op, mem_lv)
        # mem_lv 1 (the buffer) reading out to and written by the registers below it.
        if state["mode"] != "prefetch" or mem_lv != 1 or self.double_buffer_true[layer_op][1]:
            return allowed
        use = self.effective_mem_utili_individual[layer_op][0]  # w / R of the registers
        if not 0.5 < use < 1:
            return allowed
        real = self.calculate_real_data_transfer_cycles(
            layer_op, self.memory_operand_links.layer_to_mem_op(layer_op), mem_lv)
        # The spare registers' share, (R - w) / w of the refill, crosses outside the window.
        cycles = {d: allowed.get(d) + (int(real.get(d) * (1 - use) / use) if d in low else 0)
                  for d in DataDirection}
        return cm.MemoryAccesses(cycles)

    def calc_latency(self):
        latency(self)
        state["cme"] = self

    cm.CostModelEvaluation.calc_double_buffer_flag = calc_double_buffer_flag
    cm.CostModelEvaluation.calculate_allowed_transfer_cycles = calculate_allowed_transfer_cycles
    cm.CostModelEvaluation.calc_latency = calc_latency


def stalls(cme):
    """The port activities that stall, as text."""
    parts = []
    for ports in cme.port_activity_collect:
        for activities in ports.values():
            for a in activities:
                if a.stall_or_slack > 0:
                    op, lv, d = a.served_op_lv_dir
                    parts.append("%s%d %s (%d - %d) x %d = %d" % (
                        op, lv, d.value, a.real_cycle, a.allowed_cycle, a.period_count - 1,
                        a.stall_or_slack))
    return "; ".join(parts) or "none but the port's total"


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    zz.add_venv_arguments(ap, test=True)
    a = ap.parse_args()
    zz.run_in_venv(a.venv, __file__)
    ratio = suite_cycles_ratio(a.test)
    with open(os.path.join(zz.ROOT, "hw_configs", "atomic_mesh.json")) as f:
        e = zz.engine_of(json.load(f))
    keys = {}
    for net in zz.NETWORKS:
        for key, name, count in zz.layers_of(net):
            keys[(net, name)] = key
    state = {"mode": MODES[0], "cme": None}
    patch_zigzag(state)
    totals = {}
    with open(ours.OUT_CSV, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["dataflow"] == "kc"]
    for r in rows:
        pair = (r["network"], r["layer"])
        loops = [(t.rstrip("0123456789"), int(t[len(t.rstrip("0123456789")):]))
                 for t in r["given_ordering"].split()]
        suite = ratio[pair] * float(r["latency_cycles"])
        latencies, texts = [], []
        for mode in MODES:
            state["mode"] = mode
            latencies.append(zz.run_one((keys[pair], "kc", zz.OPT, e, loops))["latency_cycles"])
            if mode == "as is":
                cme = state["cme"]
                use = {str(op): round(v[0], 3)
                       for op, v in cme.effective_mem_utili_individual.items()}
                texts.append("registers' use %s; stalls: %s" % (use, stalls(cme)))
        t = totals.setdefault(r["network"], [0.0] * (1 + len(MODES)))
        t[0] += float(r["count"]) * suite
        for i, lat in enumerate(latencies):
            t[1 + i] += float(r["count"]) * lat
        print("%s %s [%s] %s: ours / ZigZag %s; %s" % (
            pair[0], pair[1], r["our_array"], r["given_ordering"],
            ", ".join("%s %.3f" % (m, suite / lat) for m, lat in zip(MODES, latencies)),
            texts[0]), flush=True)
    for net, t in totals.items():
        print("total %s: ours / ZigZag %s" % (
            net, ", ".join("%s %.3f" % (m, t[0] / t[1 + i]) for i, m in enumerate(MODES))))


if __name__ == "__main__":
    main()
