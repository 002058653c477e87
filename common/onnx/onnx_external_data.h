#pragma once
// Initializers stored outside the .onnx file (ONNX "external data": data_location EXTERNAL and
// external_data entries location / offset / length), as torch.onnx.export(..., dynamo=True) writes
// by default (the weights in <model>.onnx.data beside the model). Loading reads them into
// raw_data so that the rest of the loader sees ordinary initializers.
#include <filesystem>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace dgs {

// Reads every external initializer of `model` from its file, resolved relative to the directory
// of `model_path`, into raw_data (data_location DEFAULT, external_data cleared). Refuses in one
// line naming the initializer (dgs::OnnxInvalidModel): a location that is absolute or leaves the
// model's directory (".."), a file that cannot be opened, an offset or length that is negative,
// not a number, or beyond the end of the file, a length that differs from what the dims and
// element type need, and an element type without a fixed size.
// Returns the data files it read (each once, sorted).
std::vector<std::filesystem::path> load_external_initializers(onnx::ModelProto* model,
                                                              const std::string& model_path);

}  // namespace dgs
