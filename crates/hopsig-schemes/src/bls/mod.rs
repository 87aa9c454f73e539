//! BGLS aggregate signatures exactly as the IETF BLS signature draft
//! (draft-irtf-cfrg-bls-signature-05): the **basic scheme**, ciphersuite
//! `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_`, minimal-pubkey-size variant.
//!
//! * Secret key: an integer `1 <= SK < r`, serialized as 32 bytes big-endian; `KeyGen`
//!   from input keying material as §2.3 says ([`Bgls::key_from_ikm`]).
//! * Public key: `SK · P1`, the 48-byte compressed G1 point (§2.4 `SkToPk`), checked by
//!   `KeyValidate` (§2.5: valid point, in G1, not the identity) when read.
//! * Signature: `SK · H(m)`, 96-byte compressed G2 point, `H` = RFC 9380 hash to G2
//!   with the ciphersuite id as DST (§2.6 `CoreSign`).
//! * Aggregate: the sum of the signatures (§2.8), again 96 bytes for any n.
//! * `AggregateVerify` (§3.1.1): rejects if any two messages are equal, then checks
//!   `∏ e(PK_i, H(m_i)) = e(P1, σ)` (§2.9 `CoreAggregateVerify`).
//!
//! BGLS aggregates freely, so as a sequential scheme a hop simply adds its signature to
//! the aggregate so far: nothing is verified while signing (lazy by nature). The
//! arithmetic, hashing and pairings are blst's own (`blst::min_pk`).

use std::convert::Infallible;

use blst::min_pk::{AggregateSignature, PublicKey, SecretKey, Signature};
use blst::BLST_ERROR;
use hopsig_primitives::armor::{KeyFile, KeyKind};
use hopsig_primitives::codec::{to_hex, Codec, DecodeError, Reader, Writer};
use hopsig_primitives::rsa::pem_block;
use hopsig_primitives::valgrind::declassify;
use zeroize::Zeroizing;

use crate::error::OpensslResult;
use crate::keyblock::{expect_blocks, fixed};
use crate::traits::{Aggregate, FreeAggregate, SequentialAggregate, SigningKey, VerifyingKey};
use crate::wire::{decode_aggregate, not_this_scheme, Header, SchemeCode, Signers};
use crate::Error;

/// The ciphersuite id of the basic scheme with G1 public keys, used as the
/// hash-to-curve domain-separation tag (draft-05 §4.2.1).
pub const DST: &[u8] = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_";
/// Stable id.
pub const ID: &str = "bls12381-bgls";
/// Secret key bytes.
pub const SECRET_KEY_BYTES: usize = 32;
/// Public key bytes (compressed G1).
pub const PUBLIC_KEY_BYTES: usize = 48;
/// Signature bytes (compressed G2), for one signer or an aggregate of any size.
pub const SIGNATURE_BYTES: usize = 96;

const SECRET_LABEL: &str = "HOPSIG BLS SECRET KEY";
const PUBLIC_LABEL: &str = "HOPSIG BLS PUBLIC KEY";

/// The BGLS scheme.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bgls;

/// A BGLS secret key (zeroized on drop by blst).
pub struct BglsSigningKey {
    sk: SecretKey,
    pk: BglsVerifyingKey,
}

impl std::fmt::Debug for BglsSigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BglsSigningKey(public {:?})", self.pk)
    }
}

/// A BGLS public key, already `KeyValidate`d.
#[derive(Clone, PartialEq, Eq)]
pub struct BglsVerifyingKey {
    pk: PublicKey,
}

impl std::fmt::Debug for BglsVerifyingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BglsVerifyingKey({})", to_hex(&self.pk.compress()))
    }
}

/// A BGLS aggregate of `n` signatures: one G2 point, checked to be in G2 and not the
/// identity when decoded.
///
/// ```text
/// +---------------------------------------------+
/// | header (7): code 0x20, param 0, n           |  docs/spec/aggregate.md
/// +---------------------------------------------+
/// | σ (96): compressed G2 point, the IETF BLS   |  docs/spec/bls.md
/// |         (aggregate) signature               |
/// +---------------------------------------------+
/// ```
#[derive(Clone, Debug)]
pub struct BglsAggregate {
    sig: Signature,
    n: Signers,
}

impl BglsSigningKey {
    /// `I2OSP(SK, 32)`, the standard secret key serialization.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SECRET_KEY_BYTES]> {
        Zeroizing::new(self.sk.to_bytes())
    }

    /// Reads `I2OSP(SK, 32)`; rejects 0 and values ≥ r.
    ///
    /// # Errors
    /// [`Error::Key`].
    pub fn from_bytes(bytes: &[u8; SECRET_KEY_BYTES]) -> Result<Self, Error> {
        let sk = SecretKey::from_bytes(bytes)
            .map_err(|_| Error::Key("BLS secret key is zero or not below r".into()))?;
        Ok(Self::from_secret(sk))
    }

    /// The key with its public key `SkToPk(SK)` (blst, constant time in SK), which is
    /// public from here on (declassified for the constant-time test).
    fn from_secret(sk: SecretKey) -> Self {
        let mut pk = sk.sk_to_pk();
        declassify(&mut pk);
        BglsSigningKey {
            sk,
            pk: BglsVerifyingKey { pk },
        }
    }

    /// `CoreSign(SK, msg)`: the 96-byte signature on `msg` alone.
    pub fn sign_one(&self, msg: &[u8]) -> [u8; SIGNATURE_BYTES] {
        self.core_sign(msg).compress()
    }

    /// `CoreSign(SK, msg)` (blst, constant time in SK); the signature is public from
    /// here on (declassified for the constant-time test before blst compresses it).
    fn core_sign(&self, msg: &[u8]) -> Signature {
        let mut sig = self.sk.sign(msg, DST, &[]);
        declassify(&mut sig);
        sig
    }
}

impl BglsVerifyingKey {
    /// The 48-byte compressed public key (`SkToPk` output).
    pub fn to_bytes(&self) -> [u8; PUBLIC_KEY_BYTES] {
        self.pk.compress()
    }

    /// Reads a compressed public key and runs `KeyValidate`.
    ///
    /// # Errors
    /// [`Error::Key`] saying which check failed.
    pub fn from_bytes(bytes: &[u8; PUBLIC_KEY_BYTES]) -> Result<Self, Error> {
        let pk = PublicKey::key_validate(bytes).map_err(|e| {
            Error::Key(format!(
                "BLS public key fails KeyValidate: {}",
                blst_reason(e)
            ))
        })?;
        Ok(BglsVerifyingKey { pk })
    }
}

impl BglsAggregate {
    /// The 96-byte standard encoding of the aggregate signature, without hopsig's
    /// header: what other IETF BLS implementations read.
    pub fn signature_bytes(&self) -> [u8; SIGNATURE_BYTES] {
        self.sig.compress()
    }

    /// Wraps a standard 96-byte (aggregate) signature on `n` messages, checking it
    /// as [`Bgls::aggregate_from_bytes`] does.
    ///
    /// # Errors
    /// [`Error::Decode`] for a bad point; [`Error::NoSigners`] /
    /// [`Error::TooManySigners`] for `n` outside 1..=4096.
    pub fn from_signature_bytes(bytes: &[u8; SIGNATURE_BYTES], n: usize) -> Result<Self, Error> {
        let n = Signers::new(n)?;
        Ok(BglsAggregate {
            sig: decode_signature(bytes)?,
            n,
        })
    }
}

fn blst_reason(e: BLST_ERROR) -> &'static str {
    match e {
        BLST_ERROR::BLST_BAD_ENCODING => "bad encoding",
        BLST_ERROR::BLST_POINT_NOT_ON_CURVE => "point not on the curve",
        BLST_ERROR::BLST_POINT_NOT_IN_GROUP => "point not in the prime-order subgroup",
        BLST_ERROR::BLST_PK_IS_INFINITY => "point at infinity",
        _ => "rejected by blst",
    }
}

/// `signature_to_point` plus the subgroup check of `CoreAggregateVerify` step 3, done
/// once at decode time; the identity is rejected too (no honest aggregate is it).
fn decode_signature(bytes: &[u8; SIGNATURE_BYTES]) -> Result<Signature, DecodeError> {
    let invalid = |reason| DecodeError::Invalid {
        field: "BLS signature",
        reason,
    };
    let sig = Signature::uncompress(bytes).map_err(|e| invalid(blst_reason(e)))?;
    sig.validate(true).map_err(|e| {
        invalid(match e {
            BLST_ERROR::BLST_PK_IS_INFINITY => "point at infinity",
            other => blst_reason(other),
        })
    })?;
    Ok(sig)
}

impl Bgls {
    /// `KeyGen(IKM)` of draft-05 §2.3 with an empty `key_info`: HKDF-SHA-256 with salt
    /// `H("BLS-SIG-KEYGEN-SALT-")` (re-hashed while the key is zero), 48 output bytes
    /// reduced modulo r. `ikm` must be at least 32 bytes.
    ///
    /// # Errors
    /// [`Error::Key`] if `ikm` is shorter than 32 bytes.
    pub fn key_from_ikm(ikm: &[u8]) -> Result<BglsSigningKey, Error> {
        let sk = SecretKey::key_gen(ikm, &[])
            .map_err(|_| Error::Key("KeyGen needs at least 32 bytes of IKM".into()))?;
        Ok(BglsSigningKey::from_secret(sk))
    }

    /// `AggregateVerify` on a bare 96-byte signature, for callers holding standard
    /// encodings rather than hopsig aggregates.
    ///
    /// # Errors
    /// As [`SequentialAggregate::verify`], plus [`Error::Decode`] for a bad point.
    pub fn aggregate_verify(
        &self,
        signers: &[(&BglsVerifyingKey, &[u8])],
        signature: &[u8; SIGNATURE_BYTES],
    ) -> Result<(), Error> {
        let agg = BglsAggregate::from_signature_bytes(signature, signers.len().max(1))?;
        self.verify(signers, &agg)
    }
}

impl SigningKey for BglsSigningKey {
    type VerifyingKey = BglsVerifyingKey;
    fn scheme_id(&self) -> &'static str {
        ID
    }
    fn verifying_key(&self) -> BglsVerifyingKey {
        self.pk.clone()
    }
    fn to_key_file(&self) -> Result<Zeroizing<String>, Error> {
        let block = pem_block(SECRET_LABEL, self.to_bytes().as_ref());
        Ok(KeyFile::render(ID, KeyKind::Secret, &[block.as_str()]))
    }
}

impl VerifyingKey for BglsVerifyingKey {
    fn scheme_id(&self) -> &'static str {
        ID
    }
    fn to_key_file(&self) -> String {
        KeyFile::render(
            ID,
            KeyKind::Public,
            &[&pem_block(PUBLIC_LABEL, &self.to_bytes())],
        )
        .to_string()
    }
}

impl Codec for BglsAggregate {
    const NAME: &'static str = "aggregate";
    type EncodeError = Infallible;

    fn encode(&self, w: &mut Writer) -> Result<(), Infallible> {
        Header {
            code: SchemeCode::Bls12381Bgls,
            param: 0,
            signers: self.n,
        }
        .encode(w)?;
        w.bytes(&self.sig.compress());
        Ok(())
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let header = Header::read(r)?;
        if (header.code, header.param) != (SchemeCode::Bls12381Bgls, 0) {
            return Err(not_this_scheme("not a BGLS aggregate"));
        }
        Ok(BglsAggregate {
            sig: decode_signature(&r.array("BLS signature")?)?,
            n: header.signers,
        })
    }
}

impl Aggregate for BglsAggregate {
    fn signers(&self) -> usize {
        self.n.get()
    }
    fn signature_bits(&self) -> u64 {
        8 * SIGNATURE_BYTES as u64
    }
}

fn add(a: &Signature, b: &Signature) -> Result<Signature, Error> {
    let mut acc = AggregateSignature::from_signature(a);
    // Both points were subgroup-checked when decoded or made by signing.
    acc.add_signature(b, false)
        .map_err(|e| Error::Key(format!("cannot aggregate: {}", blst_reason(e))))?;
    Ok(acc.to_signature())
}

impl SequentialAggregate for Bgls {
    type SigningKey = BglsSigningKey;
    type VerifyingKey = BglsVerifyingKey;
    type Aggregate = BglsAggregate;

    fn id(&self) -> &'static str {
        ID
    }
    fn generate(&self) -> Result<BglsSigningKey, Error> {
        let mut ikm = Zeroizing::new([0u8; 32]);
        openssl::rand::rand_priv_bytes(ikm.as_mut()).backend()?;
        Bgls::key_from_ikm(ikm.as_ref())
    }
    fn sign(
        &self,
        key: &BglsSigningKey,
        msg: &[u8],
        so_far: Option<&BglsAggregate>,
    ) -> Result<BglsAggregate, Error> {
        let own = key.core_sign(msg);
        match so_far {
            None => Ok(BglsAggregate {
                sig: own,
                n: Signers::ONE,
            }),
            Some(prev) => Ok(BglsAggregate {
                n: prev.n.plus(Signers::ONE)?,
                sig: add(&prev.sig, &own)?,
            }),
        }
    }
    fn verify(
        &self,
        signers: &[(&BglsVerifyingKey, &[u8])],
        agg: &BglsAggregate,
    ) -> Result<(), Error> {
        if signers.is_empty() || signers.len() != agg.n.get() {
            return Err(Error::InvalidSignature);
        }
        // §3.1.1 AggregateVerify step 1: all messages distinct (a sort, not n² compares).
        let mut msgs: Vec<&[u8]> = signers.iter().map(|(_, m)| *m).collect();
        msgs.sort_unstable();
        if msgs.windows(2).any(|w| w[0] == w[1]) {
            return Err(Error::InvalidSignature);
        }
        let msgs: Vec<&[u8]> = signers.iter().map(|(_, m)| *m).collect();
        let pks: Vec<&PublicKey> = signers.iter().map(|(k, _)| &k.pk).collect();
        // Keys were validated when read and the signature when decoded, so blst need
        // not repeat the checks.
        match agg.sig.aggregate_verify(false, &msgs, DST, &pks, false) {
            BLST_ERROR::BLST_SUCCESS => Ok(()),
            _ => Err(Error::InvalidSignature),
        }
    }
    fn aggregate_from_bytes(&self, bytes: &[u8]) -> Result<BglsAggregate, Error> {
        decode_aggregate(bytes, SchemeCode::Bls12381Bgls, 0)
    }
    fn signing_key_from_file(&self, file: &KeyFile) -> Result<BglsSigningKey, Error> {
        expect_blocks(file, &[SECRET_LABEL])?;
        BglsSigningKey::from_bytes(&*fixed::<SECRET_KEY_BYTES>(file, SECRET_LABEL)?)
    }
    fn verifying_key_from_file(&self, file: &KeyFile) -> Result<BglsVerifyingKey, Error> {
        expect_blocks(file, &[PUBLIC_LABEL])?;
        BglsVerifyingKey::from_bytes(&*fixed::<PUBLIC_KEY_BYTES>(file, PUBLIC_LABEL)?)
    }
}

impl FreeAggregate for Bgls {
    fn aggregate(&self, parts: &[&BglsAggregate]) -> Result<BglsAggregate, Error> {
        let (first, rest) = parts.split_first().ok_or(Error::NoSigners)?;
        let (mut sig, mut n) = (first.sig, first.n);
        for p in rest {
            n = n.plus(p.n)?;
            sig = add(&sig, &p.sig)?;
        }
        Ok(BglsAggregate { sig, n })
    }
}
