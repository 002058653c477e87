#pragma once
// The description of a domain-specific accelerator (DSA) read from a hw_configs/*.json file of
// kind "dsa" (validated; every value carries its source or "assumption: <reason>" in the file).
//
// One description covers two shapes of machine:
//   topology "clusters": `clusters` clusters of `cores_per_cluster` cores; each core has a local
//     buffer (e.g. "l1") and compute units; each cluster a global buffer (e.g. "llb") shared by
//     its cores over the cluster bus; DRAM (e.g. "ddr") behind DMA engines. Placement units:
//     "cluster" (index [cluster]) and "core" (index [cluster, core]).
//   topology "mesh": a 2-D mesh of `mesh_columns` x `mesh_rows` engines, each with a private
//     local buffer (e.g. "sram") and a PE array, XY-routed links between neighbours, DRAM (e.g.
//     "hbm") attached at the west and east edge columns (an assumption: the paper this mesh models
//     does not say where its HBM stack attaches; a tiled chip's memory controllers sit at its
//     periphery, so a transfer crosses the mesh from the nearer edge column to the engine).
//     Placement unit "engine" (index [x, y]).
// A core or engine has a matrix unit (a PE array of matrix_tile_rows x matrix_tile_columns that
// holds the reduction (rows) x output-channel (columns) tile of the "kc" dataflow, or a tile of
// output pixels in the "yx" dataflow) and a vector unit of `vector_lanes` elements per cycle.
// The model that reads it is common/dsamodel (see its README section for the plan mapping).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dgs {

enum class DsaTopology : uint8_t { Clusters, Mesh };
enum class DsaDataflow : uint8_t {
  KC,  // weight stationary: array rows over the reduction (input channels), columns over output
       // channels; output pixels (GEMM rows) streamed
  YX   // output stationary: the array holds a tile of output pixels; the reduction is temporal
};

struct DsaSpec {
  std::string name;  // "STCP920"
  std::string file;  // where it was read from

  DsaTopology topology = DsaTopology::Clusters;
  int clusters = 1;           // clusters (a mesh: 1)
  int cores_per_cluster = 1;  // cores per cluster (a mesh: columns x rows)
  int mesh_columns = 0;       // mesh only
  int mesh_rows = 0;          // mesh only
  double clock_mhz = 0;

  // Datatype every tensor is stored and computed in: "int8" (1 byte) or "fp16" (2 bytes).
  std::string datatype;
  int element_bytes = 1;

  // Matrix unit (per core/engine).
  int matrix_tile_rows = 0;                // spatial reduction extent (kc) / output rows (yx)
  int matrix_tile_columns = 0;             // spatial output-channel extent (kc) / output cols (yx)
  double matrix_macs_per_cycle = 0;        // at `datatype` (0: no matrix unit)
  std::vector<DsaDataflow> dataflows;      // supported
  DsaDataflow dataflow = DsaDataflow::KC;  // the one the model uses
  double fold_overhead_cycles = 0;         // fixed cost per fold besides fill and drain
  // Register files of the matrix unit (entries; what each dataflow keeps in them, and how the
  // array is fed from the local buffer's port, is in common/dsamodel/array_nest.h): per PE,
  // weights; per row (kc, broadcast along it) or per PE (yx), inputs; per column (kc, after the
  // reduction down it) or per PE (yx), partial sums of partial_sum_bytes each.
  int pe_weight_registers = 1;
  int pe_input_registers = 1;
  int pe_output_registers = 1;
  int partial_sum_bytes = 4;
  double register_pj_per_bit = 0;  // register-file access energy
  // Vector unit (per core/engine): elements per cycle (0: none).
  int vector_lanes = 0;
  double task_overhead_cycles = 0;  // per task on a unit (launch, synchronisation)
  // Weights and constants a unit's last task loaded stay in its local buffer: a task needing a
  // region inside them reads it in place (optional field `weights_stay`, 1; default 0: every
  // task loads its weights).
  bool weights_stay = false;
  // A load that would start before its stage (prefetch across stages) waits for the releases at
  // earlier stage ends it needs to fit, so a local buffer never holds more than its capacity at
  // any moment (optional field `loads_wait_for_releases`, 1; default 0: such loads start as soon
  // as their unit is free, and the capacity check counts the buffer after the releases).
  bool loads_wait_for_releases = false;

  // Buffers. Local: one per core/engine; global: one per cluster (absent: global_level empty).
  std::string local_level;
  int64_t local_bytes = 0;
  int local_ports = 1;
  double local_bytes_per_cycle = 0;  // per port
  double local_pj_per_bit = 0;
  std::string global_level;
  int64_t global_bytes = 0;
  double global_bytes_per_cycle = 0;  // the cluster bus, shared by the cluster's cores
  double global_pj_per_bit = 0;

  // DMA engines (per cluster; a mesh: per chip) between DRAM and the buffers.
  int dma_engines = 1;
  double dma_bytes_per_cycle = 0;  // per engine

  // DRAM, shared by the whole chip.
  std::string dram_level;
  int64_t dram_bytes = 0;
  double dram_bandwidth_gbs = 0;  // peak
  double dram_efficiency = 1;     // achieved fraction of peak
  double dram_latency_cycles = 0;
  double dram_pj_per_bit = 0;

  // Mesh network (topology mesh): links of `noc_link_bytes_per_cycle` per direction, XY routing.
  double noc_link_bytes_per_cycle = 0;
  double noc_hop_cycles = 0;
  double noc_pj_per_bit_hop = 0;

  // Energy.
  double mac_pj = 0;              // per multiply-accumulate
  double static_mw_per_unit = 0;  // per core/engine

  // Sources, one per field name, as written in the file.
  std::map<std::string, std::string> sources;

  int units() const { return clusters * cores_per_cluster; }  // cores or engines
  double dram_bytes_per_cycle() const {
    return dram_bandwidth_gbs * 1e3 / clock_mhz * dram_efficiency;
  }
  double local_bandwidth() const { return local_bytes_per_cycle * local_ports; }
  bool operator==(const DsaSpec&) const = default;  // every field, the name and sources too
};

// Parses a DSA config; `origin` names it in errors. Every error is one line naming the file and
// the field: a missing field, a wrong unit, an impossible value (a dataflow not supported, a
// local buffer larger than the global one, a mesh without links).
DsaSpec parse_dsa_spec(const std::string& json_text, const std::string& origin);
DsaSpec load_dsa_spec(const std::string& name_or_path);

// Sweeps: configs derived from one spec (the name says what changed, sources say "derived").
// The same machine as a mesh of columns x rows engines of pe x pe PEs each.
DsaSpec dsa_with_mesh(const DsaSpec& base, int columns, int rows, int pe_rows, int pe_columns);
// The same machine with `bytes` of local buffer per core/engine.
DsaSpec dsa_with_local_bytes(const DsaSpec& base, int64_t bytes);
// The same machine using another supported dataflow (throws if the config does not support it).
DsaSpec dsa_with_dataflow(const DsaSpec& base, DsaDataflow dataflow);

std::string_view dsa_dataflow_name(DsaDataflow d);  // "kc", "yx"

}  // namespace dgs
