// The paper's network set and the networks each evaluation item runs (see paper_networks.h).
#include "reproductions/atomic/paper_networks.h"

#include <algorithm>

namespace dgs::atomic {

namespace {

// Left out of the batch-20 items, for run time (not refusals: a network whose plan the DSA model
// refuses is run, and its item says so).
const std::vector<LeftOut> kLeftOutOfBatch20ForRunTime = {
    {"nasnet_large",
     "run time: NasNet-A Large at batch 20 (at batch 1 its AD search prices 9 candidates, the kept "
     "one of 213,828 atoms: Fig. 8)"},
    {"resnet1001",
     "run time and memory: about 100 s of CPU and 4 GB for LS, CNN-P, IL-Pipe and AD at batch "
     "20, more than the other networks together"},
};
// Left out of the YX-P runs, for run time: Fig. 8's YX-P panel has no claim (the text gives no
// YX-P numbers, 'the situation is similar'), so it shows the three networks it always showed;
// Fig. 9's YX-P panel runs ResNet-50, as it always did (each further network is another LS,
// CNN-P, IL-Pipe and AD run at batch 20).
const std::vector<LeftOut> kLeftOutOfYxBatch1 = {
    {"resnet152", "run time: no claim reads Fig. 8's YX-P panel"},
    {"nasnet_large", "run time: no claim reads Fig. 8's YX-P panel"},
    {"pnasnet5_large", "run time: no claim reads Fig. 8's YX-P panel"},
    {"efficientnet_b0", "run time: no claim reads Fig. 8's YX-P panel"},
    {"resnet1001", "run time: no claim reads Fig. 8's YX-P panel"},
};
const std::vector<LeftOut> kLeftOutOfYxBatch20 = {
    {"resnet152", "run time (about a minute of CPU for LS, CNN-P, IL-Pipe and AD at batch 20)"},
    {"inception_v3", "run time (about 45 s of CPU for LS, CNN-P, IL-Pipe and AD at batch 20)"},
    {"efficientnet_b0", "run time (about 20 s of CPU for LS, CNN-P, IL-Pipe and AD at batch 20)"},
};

}  // namespace

const std::vector<PaperNetwork>& table2_networks() {
  static const std::vector<PaperNetwork> nets = {{"VGG-19", "vgg19"},
                                                 {"ResNet-50", "resnet50"},
                                                 {"ResNet-152", "resnet152"},
                                                 {"Inception-v3", "inception_v3"},
                                                 {"NasNet", "nasnet_large"},
                                                 {"PNASNet", "pnasnet5_large"},
                                                 {"EfficientNet", "efficientnet_b0"},
                                                 {"ResNet-1001", "resnet1001"}};
  return nets;
}

std::string paper_name_of(const std::string& zoo) {
  for (const PaperNetwork& n : table2_networks())
    if (n.zoo == zoo) return n.paper_name;
  return "";
}

std::vector<LeftOut> networks_left_out(int batch, DsaDataflow df) {
  std::vector<LeftOut> out;
  if (batch > 1) out = kLeftOutOfBatch20ForRunTime;
  const std::vector<LeftOut>& yx = batch > 1 ? kLeftOutOfYxBatch20 : kLeftOutOfYxBatch1;
  if (df == DsaDataflow::YX) out.insert(out.end(), yx.begin(), yx.end());
  return out;
}

std::vector<std::string> networks_run(int batch, DsaDataflow df) {
  const std::vector<LeftOut> left = networks_left_out(batch, df);
  std::vector<std::string> out;
  for (const PaperNetwork& n : table2_networks())
    if (std::none_of(left.begin(), left.end(), [&](const LeftOut& l) { return l.zoo == n.zoo; }))
      out.push_back(n.zoo);
  return out;
}

DsaSpec item_spec(const DsaSpec& base, DsaDataflow df) {
  return dsa_with_dataflow(base, df);
}

std::string stand_ins(const std::vector<std::string>& labels) {
  std::string s;
  for (const std::string& l : labels) {
    if (!s.empty()) s += "; ";
    s += l;
  }
  return s;
}

}  // namespace dgs::atomic
