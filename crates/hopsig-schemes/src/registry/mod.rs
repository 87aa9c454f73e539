//! Every scheme hopsig knows, in one table ([`ALL_SCHEMES`], as rustls lists its cipher
//! suites), and the object-safe [`Scheme`] interface of the sequential ones
//! (`registry/dynamic.rs`).
//!
//! Each entry gives a scheme's stable id, its header code and parameter byte, a one-line
//! description and how to build it. The CLI's list, [`lookup`] by id, [`for_aggregate`]
//! by an aggregate's header, [`for_key_file`] by a key file's `scheme` header, the ids
//! and codes of BGR parameter sets, and the benchmarks all read this table, so a scheme
//! is added in one place.

use std::ops::RangeInclusive;
use std::sync::LazyLock;

use hopsig_primitives::armor::{KeyInput, KeyKind};
use hopsig_primitives::codec::DecodeError;

use crate::bgr::{Bgr, BgrParams, RANDOM_R_BITS};
use crate::bls::{self, Bgls};
use crate::concat::{
    BaseSignature, Concat, EcdsaK163, EcdsaK233, EcdsaK283, EcdsaP256, Rsa2048Pkcs1,
};
use crate::wire::{Header, SchemeCode};
use crate::{ibas, Error};

mod dynamic;

pub use dynamic::*;

/// What the parameter byte of a scheme's header may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    /// Always this byte.
    Fixed(u8),
    /// ℓ_r / 8 of BGR's basic scheme: `default` for the plain id, any ℓ_r in `bits` (a
    /// multiple of 8) through the alias `ID-rBITS`.
    RandomR {
        /// The byte of the plain id.
        default: u8,
        /// Every ℓ_r the scheme accepts.
        bits: RangeInclusive<u16>,
    },
}

impl Param {
    /// The byte of the plain id.
    pub fn default_byte(&self) -> u8 {
        match self {
            Param::Fixed(b) => *b,
            Param::RandomR { default, .. } => *default,
        }
    }

    /// Whether the scheme has a parameter set with this byte.
    pub fn accepts(&self, byte: u8) -> bool {
        match self {
            Param::Fixed(b) => *b == byte,
            Param::RandomR { bits, .. } => bits.contains(&(u16::from(byte) * 8)),
        }
    }
}

/// ℓ_r / 8 as the parameter byte, for an ℓ_r that is a multiple of 8 below 2048.
fn r_byte(bits: u16) -> Option<u8> {
    bits.is_multiple_of(8)
        .then(|| u8::try_from(bits / 8).ok())
        .flatten()
}

/// Which key files of a scheme are a standard key and nothing else: one PKCS #8
/// `PRIVATE KEY` or SubjectPublicKeyInfo `PUBLIC KEY` block. For those, a plain key as
/// OpenSSL writes it (PEM or DER, no hopsig header) is read as the scheme's key file
/// (`docs/spec/keys.md`, "Plain keys").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainKeys {
    /// Neither: the key files hold hopsig blocks (BLS, IBAS).
    Neither,
    /// Public keys only. BGR secret keys stay hopsig files: `bgr-rsa*` ones hold the
    /// PRF seed too, and a named file keeps one RSA key to one scheme.
    Public,
    /// Secret and public keys (the concatenation schemes: ordinary RSA and ECDSA keys).
    Both,
}

impl PlainKeys {
    /// Whether a plain key of `kind` stands for the scheme's key file.
    pub fn accepts(self, kind: KeyKind) -> bool {
        match self {
            PlainKeys::Neither => false,
            PlainKeys::Public => kind == KeyKind::Public,
            PlainKeys::Both => true,
        }
    }
}

/// How a scheme is used.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A [`SequentialAggregate`]: key pairs from key generation, verification against
    /// public keys. The function builds it for a code and an accepted parameter byte.
    Sequential(fn(SchemeCode, u8) -> Option<Box<dyn Scheme>>),
    /// Identity-based ([`crate::ibas`]): keys come from a PKG and verifiers name signers
    /// by identity, so it has no [`Scheme`] object.
    IdentityBased,
}

/// One scheme: everything the wire, the CLI and the benchmarks need to know about it.
#[derive(Debug, Clone)]
pub struct SchemeEntry {
    /// Stable id (`hopsig schemes`, key files, `--scheme`).
    pub id: &'static str,
    /// Aggregate header code.
    pub code: SchemeCode,
    /// Aggregate header parameter byte.
    pub param: Param,
    /// One line saying what it is.
    pub description: &'static str,
    /// Sequential or identity-based, and how to build it.
    pub kind: Kind,
    /// Which of its key files a plain standard key may stand for.
    pub plain_keys: PlainKeys,
}

fn new_bgr(code: SchemeCode, param: u8) -> Option<Box<dyn Scheme>> {
    BgrParams::from_code(code, param).map(|p| Box::new(Bgr::new(p)) as Box<dyn Scheme>)
}

fn new_concat<B: BaseSignature>(_: SchemeCode, _: u8) -> Option<Box<dyn Scheme>> {
    Some(Box::new(Concat::<B>::new()))
}

fn new_bgls(_: SchemeCode, _: u8) -> Option<Box<dyn Scheme>> {
    Some(Box::new(Bgls))
}

/// The entry of `n` concatenated signatures of `B`, from `B`'s constants.
const fn concat<B: BaseSignature>() -> SchemeEntry {
    SchemeEntry {
        id: B::ID,
        code: B::CODE,
        param: Param::Fixed(0),
        description: B::DESCRIPTION,
        kind: Kind::Sequential(new_concat::<B>),
        plain_keys: PlainKeys::Both,
    }
}

/// Every scheme, in the order `hopsig schemes` lists them.
pub static ALL_SCHEMES: [SchemeEntry; 11] = [
    SchemeEntry {
        id: "bgr-rsa2048",
        code: SchemeCode::BgrRsa2048,
        param: Param::Fixed(0),
        description: "BGR lazy sequential aggregate, RSA-2048, input-dependent r (PRF, §5); 2304 + 129n bits",
        kind: Kind::Sequential(new_bgr),
        plain_keys: PlainKeys::Public,
    },
    SchemeEntry {
        id: "bgr-rsa3072",
        code: SchemeCode::BgrRsa3072,
        param: Param::Fixed(0),
        description: "BGR lazy sequential aggregate, RSA-3072, input-dependent r (PRF, §5); 3328 + 129n bits",
        kind: Kind::Sequential(new_bgr),
        plain_keys: PlainKeys::Public,
    },
    SchemeEntry {
        id: "bgr-rand-rsa2048",
        code: SchemeCode::BgrRandRsa2048,
        param: Param::RandomR {
            default: 152 / 8,
            bits: RANDOM_R_BITS,
        },
        description: "BGR lazy sequential aggregate, RSA-2048, random r (§3), ℓ_r = 152; 2304 + 153n bits",
        kind: Kind::Sequential(new_bgr),
        plain_keys: PlainKeys::Public,
    },
    SchemeEntry {
        id: "bgr-rand-rsa3072",
        code: SchemeCode::BgrRandRsa3072,
        param: Param::RandomR {
            default: 168 / 8,
            bits: RANDOM_R_BITS,
        },
        description: "BGR lazy sequential aggregate, RSA-3072, random r (§3), ℓ_r = 168; 3328 + 169n bits",
        kind: Kind::Sequential(new_bgr),
        plain_keys: PlainKeys::Public,
    },
    concat::<Rsa2048Pkcs1>(),
    concat::<EcdsaP256>(),
    SchemeEntry {
        id: bls::ID,
        code: SchemeCode::Bls12381Bgls,
        param: Param::Fixed(0),
        description: "BGLS aggregate (IETF BLS draft-05 basic scheme, BLS12-381, G1 keys): 768 bits for any n",
        kind: Kind::Sequential(new_bgls),
        plain_keys: PlainKeys::Neither,
    },
    concat::<EcdsaK163>(),
    concat::<EcdsaK233>(),
    concat::<EcdsaK283>(),
    SchemeEntry {
        id: ibas::ID,
        code: SchemeCode::IbasBls12381,
        param: Param::Fixed(ibas::W_LEN as u8),
        description: "Gentry-Ramzan identity-based aggregate on BLS12-381 (keys from `hopsig pkg`): 1280 bits for any n",
        kind: Kind::IdentityBased,
        plain_keys: PlainKeys::Neither,
    },
];

/// A scheme of the table with the parameter byte an id or a header chose.
#[derive(Debug, Clone, Copy)]
pub struct Selected {
    /// The table entry.
    pub entry: &'static SchemeEntry,
    /// The parameter byte (accepted by the entry).
    pub param: u8,
}

impl Selected {
    /// The id: the entry's, or `ID-rBITS` for a non-default ℓ_r (each alias is built
    /// once, for every byte the entry accepts).
    /// A `Selected` built by hand with a byte its entry does not accept has the
    /// entry's id.
    pub fn id(&self) -> &'static str {
        match self.entry.param {
            Param::RandomR { .. } if self.param != self.entry.param.default_byte() => R_ALIASES
                .iter()
                .find(|(id, param, _)| *id == self.entry.id && *param == self.param)
                .map_or(self.entry.id, |(_, _, alias)| alias.as_str()),
            _ => self.entry.id,
        }
    }

    /// The scheme, ready to use.
    ///
    /// # Errors
    /// [`Error::IdentityBased`] for IBAS, which has no [`Scheme`] object.
    pub fn scheme(&self) -> Result<Box<dyn Scheme>, Error> {
        match self.entry.kind {
            Kind::Sequential(new) => new(self.entry.code, self.param)
                .ok_or_else(|| Error::UnknownScheme(self.id().to_string())),
            Kind::IdentityBased => Err(Error::IdentityBased(self.id().to_string())),
        }
    }
}

/// The `ID-rBITS` alias of every parameter byte a [`Param::RandomR`] entry accepts
/// other than its default, as (entry id, byte, alias), written once: ids are
/// `&'static str` so that a caller (a binding, a second backend, a wire format) holds
/// them without a lifetime or an allocation, and the set is finite (ℓ_r a multiple of
/// 8 in the entry's range).
static R_ALIASES: LazyLock<Vec<(&'static str, u8, String)>> = LazyLock::new(|| {
    ALL_SCHEMES
        .iter()
        .filter(|entry| matches!(entry.param, Param::RandomR { .. }))
        .flat_map(|entry| {
            (0..=u8::MAX)
                .filter(|&byte| entry.param.accepts(byte) && byte != entry.param.default_byte())
                .map(|byte| {
                    let alias = format!("{}-r{}", entry.id, u16::from(byte) * 8);
                    (entry.id, byte, alias)
                })
        })
        .collect()
});

/// The table entry with this id; `ID-rBITS` selects ℓ_r = BITS of an entry with
/// [`Param::RandomR`] (a multiple of 8, no leading zero; the default spelled out is
/// accepted too).
///
/// # Errors
/// [`Error::UnknownScheme`].
pub fn by_id(id: &str) -> Result<Selected, Error> {
    ALL_SCHEMES
        .iter()
        .find_map(|entry| {
            if id == entry.id {
                return Some(Selected {
                    entry,
                    param: entry.param.default_byte(),
                });
            }
            let bits = id.strip_prefix(entry.id)?.strip_prefix("-r")?;
            if !matches!(entry.param, Param::RandomR { .. })
                || bits.starts_with('0')
                || !bits.bytes().all(|c| c.is_ascii_digit())
            {
                return None;
            }
            let param = r_byte(bits.parse().ok()?)?;
            entry
                .param
                .accepts(param)
                .then_some(Selected { entry, param })
        })
        .ok_or_else(|| Error::UnknownScheme(id.to_string()))
}

/// The table entry a header's code and parameter byte name.
///
/// # Errors
/// [`Error::Decode`] if the scheme has no parameter set with this byte.
pub fn by_code(code: SchemeCode, param: u8) -> Result<Selected, Error> {
    ALL_SCHEMES
        .iter()
        .find(|e| e.code == code && e.param.accepts(param))
        .map(|entry| Selected { entry, param })
        .ok_or(Error::Decode(DecodeError::Invalid {
            field: "scheme parameter",
            reason: "names no parameter set of the scheme code",
        }))
}

/// What a header's code and parameter byte name: the scheme id, or the two bytes.
pub fn describe(code: SchemeCode, param: u8) -> String {
    by_code(code, param).map_or_else(
        |_| {
            format!(
                "scheme code 0x{:02x} with parameter {param}",
                u8::from(code)
            )
        },
        |s| s.id().to_string(),
    )
}

/// Every sequential scheme with its default parameters, in table order.
pub fn schemes() -> Vec<Box<dyn Scheme>> {
    ALL_SCHEMES
        .iter()
        .filter_map(|entry| {
            Selected {
                entry,
                param: entry.param.default_byte(),
            }
            .scheme()
            .ok()
        })
        .collect()
}

/// The scheme with this id (see [`by_id`] for `-rBITS`).
///
/// # Errors
/// [`Error::UnknownScheme`]; [`Error::IdentityBased`] for IBAS.
pub fn lookup(id: &str) -> Result<Box<dyn Scheme>, Error> {
    by_id(id)?.scheme()
}

/// The scheme named by an aggregate's header.
///
/// # Errors
/// A malformed header or a parameter byte the scheme does not define
/// ([`Error::Decode`]); [`Error::IdentityBased`] for an IBAS aggregate.
pub fn for_aggregate(bytes: &[u8]) -> Result<Box<dyn Scheme>, Error> {
    let h = Header::peek(bytes)?;
    by_code(h.code, h.param)?.scheme()
}

/// The scheme and kind named by a key file's headers.
///
/// # Errors
/// A malformed key file; [`Error::PlainKeyNamesNoScheme`] for a plain standard key; an
/// unknown scheme; [`Error::IdentityBased`] for IBAS.
pub fn for_key_file(text: &[u8]) -> Result<(Box<dyn Scheme>, KeyKind), Error> {
    match KeyInput::parse(text)? {
        KeyInput::File(file) => Ok((lookup(&file.scheme)?, file.kind)),
        KeyInput::Plain(_) => Err(Error::PlainKeyNamesNoScheme),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::bgr::Randomness;

    #[test]
    fn every_parameter_set_has_a_static_id_that_reads_back() {
        let mut ids = 0;
        for entry in ALL_SCHEMES.iter() {
            for param in (0..=u8::MAX).filter(|&b| entry.param.accepts(b)) {
                let id: &'static str = Selected { entry, param }.id();
                let back = by_id(id).unwrap();
                assert_eq!((back.entry.id, back.param), (entry.id, param), "{id}");
                ids += 1;
            }
        }
        // Two entries with ℓ_r in 64..=256 (25 multiples of 8) and the fixed ones.
        assert_eq!(ids, ALL_SCHEMES.len() - 2 + 2 * 25);
    }

    #[test]
    fn every_code_point_has_one_entry_and_ids_are_unique() {
        for code in SchemeCode::ALL {
            assert_eq!(
                ALL_SCHEMES.iter().filter(|e| e.code == *code).count(),
                1,
                "{code:?}"
            );
        }
        for (i, e) in ALL_SCHEMES.iter().enumerate() {
            assert!(ALL_SCHEMES[..i].iter().all(|o| o.id != e.id), "{}", e.id);
        }
    }

    #[test]
    fn each_entry_builds_the_scheme_it_names() {
        for entry in &ALL_SCHEMES {
            let sel = by_id(entry.id).unwrap();
            assert_eq!(sel.param, entry.param.default_byte());
            assert_eq!(by_code(entry.code, sel.param).unwrap().id(), entry.id);
            match sel.scheme() {
                Ok(s) => assert_eq!(s.id(), entry.id),
                Err(Error::IdentityBased(id)) => {
                    assert_eq!(id, entry.id);
                    assert!(matches!(entry.kind, Kind::IdentityBased));
                }
                Err(e) => panic!("{}: {e}", entry.id),
            }
        }
        assert_eq!(schemes().len(), ALL_SCHEMES.len() - 1);
    }

    #[test]
    fn bgr_descriptions_state_the_size_formula() {
        for entry in ALL_SCHEMES.iter().filter(|e| e.id.starts_with("bgr")) {
            let p = BgrParams::from_id(entry.id).unwrap();
            let formula = format!("{} + {}n bits", p.signature_bits(0), 8 * p.r_len() + 1);
            assert!(entry.description.ends_with(&formula), "{}", entry.id);
            if let Randomness::Random { bits } = p.randomness() {
                assert!(entry.description.contains(&format!("ℓ_r = {bits}")));
            }
        }
    }

    #[test]
    fn r_bits_aliases_select_a_parameter_byte() {
        let sel = by_id("bgr-rand-rsa2048-r192").unwrap();
        assert_eq!((sel.entry.id, sel.param), ("bgr-rand-rsa2048", 24));
        assert_eq!(sel.id(), "bgr-rand-rsa2048-r192");
        assert_eq!(
            by_id("bgr-rand-rsa3072-r168").unwrap().id(),
            "bgr-rand-rsa3072"
        );
        for bad in [
            "bgr-rsa2048-r128",
            "bgr-rand-rsa2048-r100",
            "bgr-rand-rsa2048-r0152",
            "bgr-rand-rsa2048-r",
            "bgr-rand-rsa2048-r512",
            "bgr-rand-rsa2048-r+64",
            "ecdsa-k163-r64",
            "bgr",
        ] {
            assert!(matches!(by_id(bad), Err(Error::UnknownScheme(_))), "{bad}");
        }
        assert_eq!(
            describe(SchemeCode::BgrRandRsa2048, 24),
            "bgr-rand-rsa2048-r192"
        );
        assert_eq!(
            describe(SchemeCode::BgrRandRsa2048, 5),
            "scheme code 0x12 with parameter 5"
        );
        assert!(matches!(
            by_code(SchemeCode::Rsa2048Concat, 1),
            Err(Error::Decode(_))
        ));
    }

    #[test]
    fn ibas_is_listed_but_has_no_key_pairs() {
        assert!(matches!(
            lookup(ibas::ID),
            Err(Error::IdentityBased(id)) if id == "ibas-bls12381"
        ));
        let sel = by_code(SchemeCode::IbasBls12381, 16).unwrap();
        assert_eq!(sel.entry.id, ibas::ID);
    }
}
