//! The tensors of `model.safetensors`, read by name into `f32` (from F32, F16 or BF16), each
//! checked against the shape `config.json` implies. Names are BERT's, with or without the
//! `bert.` prefix some checkpoints carry.

use safetensors::{Dtype, SafeTensors};

/// The tensors of one weights file.
pub struct Weights<'a> {
    tensors: SafeTensors<'a>,
    prefix: &'static str,
}

impl<'a> Weights<'a> {
    /// Read the file's header (every tensor's name, type, shape and place in `bytes`); an
    /// error says what is damaged.
    pub fn parse(bytes: &'a [u8]) -> Result<Weights<'a>, String> {
        let tensors = SafeTensors::deserialize(bytes).map_err(|e| e.to_string())?;
        let prefixed = tensors
            .names()
            .iter()
            .any(|name| name.starts_with("bert.embeddings."));
        Ok(Weights {
            tensors,
            prefix: if prefixed { "bert." } else { "" },
        })
    }

    /// The tensor `name` as `f32`, which must have `shape`.
    pub fn get(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        let full = format!("{}{name}", self.prefix);
        let view = self
            .tensors
            .tensor(&full)
            .map_err(|_| format!("there is no tensor `{full}`"))?;
        if view.shape() != shape {
            return Err(format!(
                "`{full}` has the shape {:?}, config.json makes it {shape:?}",
                view.shape()
            ));
        }
        let bytes = view.data();
        Ok(match view.dtype() {
            Dtype::F32 => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dtype::BF16 => bytes
                .chunks_exact(2)
                .map(|b| f32::from_bits((u16::from_le_bytes([b[0], b[1]]) as u32) << 16))
                .collect(),
            Dtype::F16 => bytes
                .chunks_exact(2)
                .map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
            other => return Err(format!("`{full}` holds {other:?} numbers, not floats")),
        })
    }
}

/// An IEEE half-precision number, exactly, as `f32`.
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = ((h >> 10) & 0x1f) as i32;
    let mantissa = (h & 0x3ff) as f32;
    sign * match exponent {
        0 => mantissa * (2f32).powi(-24),
        31 if mantissa == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        e => (1.0 + mantissa / 1024.0) * (2f32).powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision_numbers_are_read_exactly() {
        for (bits, value) in [
            (0x3c00u16, 1.0f32),
            (0xc000, -2.0),
            (0x3555, 0.333_251_95),
            (0x7bff, 65504.0),
            (0x0001, 5.960_464_5e-8),
            (0x0000, 0.0),
        ] {
            assert_eq!(f16_to_f32(bits), value, "{bits:#x}");
        }
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
    }
}
