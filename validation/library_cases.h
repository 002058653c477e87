#pragma once
// The cases of gpu_validate that run through cuDNN and the schedulers' executors (appended to
// `out` in validation_cases()'s order; see validation_cases.h for what each case is).
#include <vector>

#include "validation/validation_cases.h"

namespace dgs::validation {

// Every distinct convolution of ResNet-50 and Inception V3 at batch 1 (and 32 when `full`), one
// cuDNN call each.
void add_cudnn_cases(std::vector<ValidationCase>& out, bool full);
// Stages of 2 and 4 concurrent convolutions (IOS Fig. 1.2's shapes).
void add_multistream_cases(std::vector<ValidationCase>& out);
// IOS Fig. 1.2's five schedules, GraphTurbo Table 5 at batch 64, Welder Fig. 13's ViT-S/32.
void add_ios_cases(std::vector<ValidationCase>& out);
void add_graphturbo_case(std::vector<ValidationCase>& out);
void add_welder_cases(std::vector<ValidationCase>& out);

}  // namespace dgs::validation
