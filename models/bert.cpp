// BERT encoders (Devlin et al. 2019; Hugging Face BertModel as torch.onnx exports it at opset 17):
// base = 12 layers, hidden 768, 12 heads, FFN 3072; large = 24 layers, hidden 1024, 16 heads,
// FFN 4096 (MLPerf's BERT); vocabulary 30522, 512 positions.
//   embeddings: Gather(word) + Gather(position, 0..S-1) + Gather(token type), LayerNormalization
//   extended mask: (1 - Cast(Unsqueeze(attention_mask, [1, 2]))) * -10000, added to the scores
//   each layer: self-attention (ModelBuilder::self_attention), Add + LayerNormalization,
//               Linear 3072, GELU (Erf form: opset 17 has no Gelu), Linear 768, Add + LayerNorm.
// The output is the last hidden state [B, S, 768]; the pooler (Gemm+Tanh on token 0) is not
// included. Inputs: input_ids, attention_mask, token_type_ids, all int64 [B, S].
#include <string>
#include <vector>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

namespace {
constexpr int64_t kDefaultSeqLen = 128;
constexpr int64_t kVocab = 30522;
constexpr int64_t kMaxPositions = 512;
constexpr int64_t kTokenTypes = 2;
constexpr double kBertLayerNormEps = 1e-12;
// Hugging Face's additive mask value for masked-out positions.
constexpr float kMaskedScore = -10000.0f;

struct BertConfig {
  const char* name;
  int64_t layers, hidden, heads, intermediate;
};

Graph build_bert(const ZooOptions& opts, const BertConfig& c) {
  const int64_t kLayers = c.layers, kHidden = c.hidden, kHeads = c.heads;
  const int64_t kIntermediate = c.intermediate;
  const int64_t seq = zoo_seq_len(opts, kDefaultSeqLen);
  if (seq > kMaxPositions) {
    throw UsageError("model '" + std::string(c.name) + "': sequence length " + std::to_string(seq) +
                     " exceeds the " + std::to_string(kMaxPositions) + " position embeddings");
  }
  const int64_t batch = opts.batch;
  ModelBuilder b(c.name, opts.dtype);
  const int ids = b.input("input_ids", {batch, seq}, DType::I64);
  const int mask = b.input("attention_mask", {batch, seq}, DType::I64);
  const int types = b.input("token_type_ids", {batch, seq}, DType::I64);

  int x;
  {
    auto s = b.scope("embeddings");
    const int word = b.gather(b.weight("embeddings.word_embeddings.weight", {kVocab, kHidden}), ids,
                              0, "word_embeddings");
    std::vector<int64_t> positions(static_cast<size_t>(seq));
    for (int64_t i = 0; i < seq; ++i) positions[static_cast<size_t>(i)] = i;
    const int pos_ids = b.const_ints("embeddings.position_ids", positions);
    const int pos =
        b.gather(b.weight("embeddings.position_embeddings.weight", {kMaxPositions, kHidden}),
                 pos_ids, 0, "position_embeddings");
    const int type =
        b.gather(b.weight("embeddings.token_type_embeddings.weight", {kTokenTypes, kHidden}), types,
                 0, "token_type_embeddings");
    x = b.add(word, type, "add");
    x = b.add(x, pos, "add_position");
    x = b.layernorm(x, kBertLayerNormEps, 1, "LayerNorm");
  }
  int ext_mask;
  {
    auto s = b.scope("extended_mask");
    int m = b.unsqueeze(mask, {1, 2}, "unsqueeze");  // [B, 1, 1, S]
    m = b.cast(m, opts.dtype, "cast");
    m = b.sub(b.const_scalar("extended_mask.one", 1.0f), m, "sub");
    ext_mask = b.mul_scalar(m, kMaskedScore, "mul");
  }
  for (int64_t layer = 0; layer < kLayers; ++layer) {
    auto s = b.scope("encoder.layer." + std::to_string(layer));
    int a = b.self_attention(x, kHeads, ext_mask, "attention");
    a = b.add(a, x, "attention.residual");
    a = b.layernorm(a, kBertLayerNormEps, 1, "attention.LayerNorm");
    int h = b.linear(a, kIntermediate, true, "intermediate.dense");
    h = b.gelu(h, "intermediate.gelu");
    h = b.linear(h, kHidden, true, "output.dense");
    h = b.add(h, a, "output.residual");
    x = b.layernorm(h, kBertLayerNormEps, 1, "output.LayerNorm");
  }
  return b.finish({x});
}

}  // namespace

Graph build_bert_base(const ZooOptions& opts) {
  return build_bert(opts, {"bert_base", 12, 768, 12, 3072});
}

Graph build_bert_large(const ZooOptions& opts) {
  return build_bert(opts, {"bert_large", 24, 1024, 16, 4096});
}

}  // namespace dgs
