//! Read verification of SPEC §4 (rule R5): a returned Variant's built-in type, array-ness and
//! contents are those of the standard address space.

use std::sync::OnceLock;

use opcua::types::{Variant, VariantScalarTypeId};

use crate::model::{self, REAL_VALUE, SIGNAL_INDEX_MODULUS, TICK_MODULUS};

struct Expected {
    page: Vec<i16>,
    sdd: Vec<u8>,
    image: Vec<u8>,
    arrays: Vec<(&'static str, Vec<f64>)>,
}

fn expected() -> &'static Expected {
    static EXPECTED: OnceLock<Expected> = OnceLock::new();
    EXPECTED.get_or_init(|| Expected {
        page: model::page(),
        sdd: model::sdd(),
        image: model::image(),
        arrays: model::ARRAYS
            .iter()
            .map(|(name, n)| (*name, model::double_array(*n)))
            .collect(),
    })
}

/// A returned Variant in a failure message: its type and value, at most 60 characters.
pub fn describe(variant: Option<&Variant>) -> String {
    let text = match variant {
        None | Some(Variant::Empty) => "Null".to_string(),
        Some(Variant::Array(array)) => format!("{:?}[{}]", array.value_type, array.values.len()),
        Some(Variant::ByteString(b)) => format!("ByteString[{}]", b.value.as_ref().map_or(0, Vec::len)),
        Some(v) => {
            let kind = v
                .scalar_type_id()
                .map(|t| format!("{t:?}"))
                .unwrap_or_else(|| "?".into());
            let value = match v {
                Variant::Float(f) => format!("{f}"),
                Variant::Double(f) => format!("{f}"),
                Variant::UInt32(n) => n.to_string(),
                Variant::Int32(n) => n.to_string(),
                Variant::Int64(n) => n.to_string(),
                Variant::UInt64(n) => n.to_string(),
                Variant::Int16(n) => n.to_string(),
                Variant::UInt16(n) => n.to_string(),
                other => format!("{other:?}"),
            };
            format!("{kind} {value}")
        }
    };
    if text.chars().count() <= 60 {
        text
    } else {
        text.chars().take(57).collect::<String>() + "..."
    }
}

fn array_of(variant: Option<&Variant>, kind: VariantScalarTypeId) -> Option<&[Variant]> {
    match variant {
        Some(Variant::Array(array))
            if array.value_type == kind && array.dimensions.as_ref().is_none_or(|d| d.len() <= 1) =>
        {
            Some(&array.values)
        }
        _ => None,
    }
}

/// The index i of "Signal_i", if the node is one.
pub fn signal_index(node: &str) -> Option<u64> {
    node.strip_prefix("Signal_").and_then(|i| i.parse().ok())
}

/// SPEC §4: v is an integer, 0 <= v < 2^24 and floor(v / 16384) == i mod 1024.
pub fn signal_valid(index: u64, v: f32) -> bool {
    v.fract() == 0.0
        && (0.0..16_777_216.0).contains(&v)
        && (v as u64) / TICK_MODULUS as u64 == index % SIGNAL_INDEX_MODULUS as u64
}

/// None when `variant` is what the standard address space holds at `node`, else the reason.
pub fn verify_value(node: &str, variant: Option<&Variant>) -> Option<String> {
    if let Some(index) = signal_index(node) {
        return match variant {
            Some(Variant::Float(v)) if signal_valid(index, *v) => None,
            _ => Some(format!(
                "{node}: got {}, expected tick-encoded Float for index {index}",
                describe(variant)
            )),
        };
    }
    let e = expected();
    let ok = match node {
        "Tick" => {
            return match variant {
                Some(Variant::UInt32(_)) => None,
                _ => Some(format!("Tick: got {}, expected UInt32", describe(variant))),
            }
        }
        "Real" => {
            return match variant {
                Some(Variant::Float(v)) if *v == REAL_VALUE => None,
                _ => Some(format!("Real: got {}, expected Float {REAL_VALUE}", describe(variant))),
            }
        }
        "Page" => array_of(variant, VariantScalarTypeId::Int16).is_some_and(|values| {
            values.len() == e.page.len()
                && values
                    .iter()
                    .zip(&e.page)
                    .all(|(v, x)| matches!(v, Variant::Int16(n) if n == x))
        }),
        "SDD" => matches!(variant, Some(Variant::ByteString(b)) if b.value.as_deref() == Some(&e.sdd[..])),
        "Image" => matches!(variant, Some(Variant::ByteString(b)) if b.value.as_deref() == Some(&e.image[..])),
        _ => {
            if let Some((name, values)) = e.arrays.iter().find(|(name, _)| *name == node) {
                let ok = array_of(variant, VariantScalarTypeId::Double).is_some_and(|got| {
                    got.len() == values.len()
                        && got
                            .iter()
                            .zip(values)
                            .all(|(v, x)| matches!(v, Variant::Double(d) if d == x))
                });
                return (!ok).then(|| {
                    format!(
                        "{name}: got {}, expected Double[{}] of k + 0.5",
                        describe(variant),
                        values.len()
                    )
                });
            }
            if node.starts_with("Write_") {
                return match variant {
                    Some(Variant::Double(_)) => None,
                    _ => Some(format!("{node}: got {}, expected Double", describe(variant))),
                };
            }
            return Some(format!("{node}: not a node of the standard address space"));
        }
    };
    if ok {
        return None;
    }
    Some(match node {
        "Page" => format!(
            "Page: got {}, expected Int16[{}] pattern",
            describe(variant),
            model::PAGE_LENGTH
        ),
        "SDD" => format!(
            "SDD: got {}, expected {}-byte pattern",
            describe(variant),
            model::SDD_LENGTH
        ),
        _ => format!(
            "Image: got {}, expected {}-byte pattern",
            describe(variant),
            model::IMAGE_LENGTH
        ),
    })
}

/// The tick a verified Tick or Signal_i value carries (mod 16384 for a Signal), else None.
pub fn tick_of(node: &str, variant: Option<&Variant>) -> Option<u32> {
    match variant {
        Some(Variant::UInt32(v)) if node == "Tick" => Some(*v),
        Some(Variant::Float(v)) if node.starts_with("Signal_") && *v >= 0.0 => Some((*v as u32) % TICK_MODULUS),
        _ => None,
    }
}
