#include "reproductions/ios/operator_count.h"

namespace dgs::ios {

int ios_operator_count(const Graph& g, const CompoundOptions& opts) {
  return compound_operators(g, opts).counted_units();
}

CompoundOptions ios_sum_node_options() {
  CompoundOptions o;
  o.pre_activation = false;
  o.sum_units = true;
  o.absorb_input_sums = true;
  return o;
}

}  // namespace dgs::ios
