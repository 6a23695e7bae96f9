//! BERT's configuration, `config.json`: the fields the forward pass reads (sizes, the
//! activation, layer normalisation's epsilon), as Hugging Face's `BertConfig` writes them.
//! Fields the forward pass does not need (dropout, initialisation) are not read.

use serde::Deserialize;

/// The activation of BERT's intermediate layer (`hidden_act`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum HiddenAct {
    /// `gelu`: the exact GELU, `x·Φ(x)` with erf (all-MiniLM-L6-v2's).
    #[serde(rename = "gelu")]
    Gelu,
    /// `gelu_new` (also `gelu_pytorch_tanh`, `geluapproximate`): GELU's tanh approximation.
    #[serde(
        rename = "gelu_new",
        alias = "gelu_pytorch_tanh",
        alias = "geluapproximate"
    )]
    GeluTanh,
    /// `relu`.
    #[serde(rename = "relu")]
    Relu,
}

/// `config.json` of a BERT model.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub hidden_act: HiddenAct,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub layer_norm_eps: f64,
    /// Only `absolute` (the default) is computed.
    #[serde(default)]
    pub position_embedding_type: Option<String>,
    #[serde(default)]
    pub model_type: Option<String>,
}

impl Config {
    /// Floats per attention head.
    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads.max(1)
    }
}
