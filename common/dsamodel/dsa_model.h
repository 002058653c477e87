#pragma once
// The DSA model: evaluates a Plan v2 on a DSA config (common/hw/dsa_spec.h) as a timeline over
// the cores or engines and the shared resources, and reports it as an EvaluationResult.
//
// How the plan's fields map onto the machine (schedulers that emit plans for it rely on this):
//  - placement: unit "core" [cluster, core] with `count` cores of that cluster; "cluster" [c]
//    = every core of `count` clusters from c; "engine" [x, y] with `count` engines down column x;
//    none = core/engine 0. The units share the task's primary output as `binding` says (default:
//    spread over its axes in order, batch first); each runs its part; per-unit transfers are the
//    task's traffic divided evenly among its units.
//  - stages: the compute of a stage's tasks starts when every task of the previous stage has
//    finished (a barrier). Loads do not wait for the barrier: a task's input transfers start when
//    the data has been written and its unit's buffer is free (see `tile`), so the next layer's
//    weights and any data written earlier are fetched during the current stage (at most one
//    stage ahead: no transfer starts before the start of the previous stage). With the plan
//    option prefetch_across_stages false, a task's loads wait for its stage to begin and for
//    its unit's previous task to end (no overlap across stages). The capacity check counts a
//    buffer after the releases at earlier stage ends (see scope); with the config flag
//    loads_wait_for_releases, a load that would start before its stage waits for the releases
//    it needs to fit, and the buffer's occupancy over time (peak_<local>_bytes: working sets less
//    inputs already resident, plus resident tensors) never exceeds the capacity; without it
//    (the default, e.g. STCP920) such a load starts as soon as its unit is free, and the
//    occupancy can exceed the capacity by bytes released at the stage's start.
//  - tile (double buffering): a task with a `tile` runs tile by tile in a loop nest
//    (buffer_nest.h): its output tiles along groups of axes (those that select the same inputs)
//    and, for its one matrix op, its reduction in chunks, in the order the mapper chooses (least
//    energy x cycles among those whose working set fits the task's `buffer_bytes`, the budget its
//    plan sized the tile against, or the whole local buffer: dsa_task_capacity; the partial sums
//    of the output tiles whose loops run inside the reduction's stay). An input stays while
//    the loops that do not select it run inside every loop that does, and is loaded again
//    otherwise (each input's reload); its tile counts once in the working set when it stays for
//    the whole task, twice (double-buffered) when it streams, as do the output tiles, or once
//    where the mapper single-buffers it (its working set does not fit double-buffered); partial
//    sums of a chunked reduction stay in the buffer. Loads of tile i+1 and stores of tile i-1
//    overlap the compute of tile i (a single-buffered tile's do not: the mapper's stall is added
//    to the compute and its bytes leave the port's overlapped sum), and its loads may start as soon
//    as its unit's previous task has started its last tile (which then holds its last_tile_bytes)
//    if both fit beside the resident tensors; a tiled task whose output stays local holds the whole
//    output by its end. A task without a tile loads everything, computes, then stores, and its
//    loads wait until its unit's previous task has ended.
//  - scope (where a written tensor stays until its readers have run): the local level (l1,
//    sram) keeps it in the buffer of the unit(s) that wrote it, from the end of the writing task
//    until the end of the last later stage that reads part of the written region (a region no
//    later stage reads: the tensor's last read); the global level (llb) in its cluster's global
//    buffer; absent or the DRAM level: written back to DRAM. Readers fetch it from there: the
//    same unit reads it in place; another engine over the mesh (XY route from the writer); another
//    core of the cluster over the cluster bus; another cluster through DRAM.
//  - kept: intermediates of a task never leave its units' local buffer (their bytes count in the
//    working set).
//  - reduction (partial sums): the group of tasks writing one region with ranges of one axis has
//    a home, the unit(s) of its first task in plan order. With a local scope, every other task
//    sends its partial over the mesh or bus to the home, whose vector unit adds it on arrival;
//    with a global or DRAM scope, each later task reads the running sum from that level, adds its
//    partial on its own vector unit and writes the sum back.
//  - weights_stay (config): the weights and constants a unit's tasks read stay in its buffer,
//    whole, in the room its resident tensors and the working set of its current task leave
//    (least recently used out first); a task needing a region inside them on every one of its
//    units reads them in place instead of from DRAM.
//  - staging (clusters): the DRAM regions a task reads more than once (its loop nest's re-reads,
//    or several cores reading one region) pass through its cluster's global buffer when they fit
//    beside the tensors resident there: DRAM gives each region once, the global buffer the rest.
//    Staged regions take room in the global buffer (each unit's equal share in its cluster's)
//    from the start of their DRAM read to the end of the task, counted in peak_<global>_bytes
//    with the resident tensors; the read waits until what other tasks stage there and the
//    tensors released at earlier stage ends (still held before then) leave room for them, and
//    they are read from DRAM every time when they never fit. Staging thus does not overfill the
//    buffer, except by a tensor that a task later in the plan writes there while an earlier
//    task's staging is under way (not counted against it).
//  - Tensors are stored and computed in the config's datatype, whatever the graph's dtype.
//
// Resources: each core/engine has a compute queue (matrix, vector and move cycles of unit_cost.h
// and array_nest.h, plus task_overhead) and a local-buffer port; each cluster a DMA engine pool
// and (clusters) a bus to its global buffer; the chip one DRAM channel (dram_bandwidth x
// dram_efficiency); a mesh one resource per directed link. A transfer starts when every resource
// of its path is free, streams at the narrowest bandwidth of the path, takes each resource for
// bytes / that resource's bandwidth (so a wide DRAM channel serves many narrow ports in turn, and
// transfers on one link or channel serialise in issue order while disjoint ones overlap), and
// arrives after the path's latency (DRAM latency, hops x hop latency). DRAM enters a mesh at the
// nearer of the west and east edge columns of the engine's row. A task's compute lasts the longer
// of its units' work and its port's: the operands the array and vector unit read and write
// (array_nest.h) and, while its tiles run, its own loads and stores, at the local bandwidth (plus
// fill and drain).
//
// Energy: mac_energy per MAC; the register files' reads and writes (array_nest.h) at
// register_energy; every byte written into or read out of a buffer level (transfers, the array's
// operand delivery and the vector unit's operands at the local level) at that level's pJ/bit; NoC
// bits x hops x noc_energy; DRAM bits read and written x dram_energy; static power x units x
// latency.
//
// Refused in one line naming the task and the resource: a working set plus resident tensors over
// a local buffer, resident tensors over a global buffer, a unit the config lacks (matrix or
// vector unit, a unit kind), more cores or engines than exist.
#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "common/hw/evaluation_result.h"
#include "common/plan/plan.h"

namespace dgs {

// Evaluates `plan` (checked by the caller, e.g. evaluate()) on `spec`.
//   latency_us; flops (2 x MACs plus the vector ops' FLOPs); stages, tasks; kernels = tasks;
//   stage_latency_us: each stage's end less its start (from the previous stage's end, the
//   barrier, to its last task's end), summing to latency_us;
//   bytes_by_level: local, global, DRAM level names (bytes read + written);
//   bytes_by_link (mesh): the bytes each directed link carried, "link (x,y)->(x',y')";
//   busy_us_by_unit: "core" or "engine" (compute, summed over units), "matrix", "vector", "dma";
//   energy_pj_by_component: "mac", "registers", each level name, "noc" (mesh), "static";
//   details: peak_<level>_bytes (the fullest buffer instance; at the global level, resident and
//   staged bytes), noc_byte_hops, noc_max_link_bytes,
//   noc_links_used, mac_utilisation, dram_busy_fraction, transfers.
EvaluationResult evaluate_dsa_plan(const Graph& g, const Plan& plan, const DsaSpec& spec);

}  // namespace dgs
