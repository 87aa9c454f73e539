//! The primitives schemes are built on, exposed one operation at a time so benchmarks
//! can measure them in the same run as the schemes ("the floor").

use hopsig_primitives::hash::sha256;
use hopsig_primitives::rsa::RsaSecretKey;
use openssl::ec::{EcGroup, EcKey};
use openssl::ecdsa::EcdsaSig;
use openssl::nid::Nid;
use openssl::pkey::Private;

use crate::error::OpensslResult;
use crate::Error;

/// OpenSSL's raw RSA private and public operation (no padding; CRT and blinding on the
/// private side) on a fixed random element of Z_N — exactly what BGR's π⁻¹ and π cost.
pub struct RawRsa {
    key: RsaSecretKey,
    input: Vec<u8>,
    out: Vec<u8>,
}

impl RawRsa {
    /// A fresh `bits`-bit key and a random input below `2^(bits-1)`.
    ///
    /// # Errors
    /// Backend failures.
    pub fn new(bits: u32) -> Result<Self, Error> {
        let key = RsaSecretKey::generate(bits)?;
        let k = key.public().len();
        let mut input = vec![0u8; k];
        openssl::rand::rand_bytes(&mut input).backend()?;
        input[0] &= 0x7f;
        Ok(RawRsa {
            key,
            input,
            out: vec![0u8; k],
        })
    }

    /// One private operation `y^d mod N`.
    ///
    /// # Errors
    /// Backend failures.
    pub fn private_op(&mut self) -> Result<(), Error> {
        Ok(self.key.invert(&self.input, &mut self.out)?)
    }

    /// One public operation `x^e mod N`.
    ///
    /// # Errors
    /// Backend failures.
    pub fn public_op(&mut self) -> Result<(), Error> {
        Ok(self.key.public().apply(&self.input, &mut self.out)?)
    }
}

/// OpenSSL's own ECDSA P-256 sign and verify of a SHA-256 digest.
pub struct RawEcdsaP256 {
    key: EcKey<Private>,
    digest: [u8; 32],
    sig: EcdsaSig,
}

impl RawEcdsaP256 {
    /// A fresh key and one signature to verify.
    ///
    /// # Errors
    /// Backend failures.
    pub fn new() -> Result<Self, Error> {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).backend()?;
        let key = EcKey::generate(&group).backend()?;
        let digest = sha256(&[b"hopsig floor"]);
        let sig = EcdsaSig::sign(&digest, &key).backend()?;
        Ok(RawEcdsaP256 { key, digest, sig })
    }

    /// One signature.
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign(&self) -> Result<(), Error> {
        EcdsaSig::sign(&self.digest, &self.key).backend()?;
        Ok(())
    }

    /// One verification (must succeed).
    ///
    /// # Errors
    /// Backend failures or a failed verification.
    pub fn verify(&self) -> Result<(), Error> {
        if self.sig.verify(&self.digest, &self.key).backend()? {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

/// OpenSSL verifying n ECDSA P-256 signatures, each over the SHA-256 digest of its own
/// message, with its own key: the floor of validating an n-hop BGPsec path of
/// algorithm suite 1 (RFC 8608), "n OpenSSL P-256 verifications + the SHA-256 of the
/// inputs". Each call hashes every message and verifies every DER signature, as
/// OpenSSL's `ECDSA_verify` does (it reads the DER first).
pub struct EcdsaP256Verifications {
    items: Vec<(EcKey<openssl::pkey::Public>, Vec<u8>, Vec<u8>)>,
}

impl EcdsaP256Verifications {
    /// `(DER SubjectPublicKeyInfo, message, DER signature)` for each signature.
    ///
    /// # Errors
    /// A key that is not a P-256 key, backend failures.
    pub fn new(items: &[(&[u8], &[u8], &[u8])]) -> Result<Self, Error> {
        let items = items
            .iter()
            .map(|(spki, message, sig)| {
                let key = openssl::pkey::PKey::public_key_from_der(spki)
                    .backend()?
                    .ec_key()
                    .backend()?;
                Ok((key, message.to_vec(), sig.to_vec()))
            })
            .collect::<Result<_, Error>>()?;
        Ok(EcdsaP256Verifications { items })
    }

    /// Hashes every message and verifies every signature (all must verify).
    ///
    /// # Errors
    /// Backend failures or a signature that does not verify.
    pub fn verify_all(&self) -> Result<(), Error> {
        for (key, message, sig) in &self.items {
            let digest = sha256(&[message.as_slice()]);
            if !EcdsaSig::from_der(sig)
                .backend()?
                .verify(&digest, key)
                .backend()?
            {
                return Err(Error::InvalidSignature);
            }
        }
        Ok(())
    }
}

/// blst's own three-pair pairing product check (its safe `Pairing` API: three
/// `raw_aggregate` calls, `commit`, `finalverify`), on fixed random points. The floor
/// of IBAS verification, whose equation (1) is a three-pair product.
pub struct BlstPairingProduct3 {
    pairs: [(blst::blst_p1_affine, blst::blst_p2_affine); 3],
}

fn blst_secret(i: u8) -> Result<blst::min_pk::SecretKey, Error> {
    let mut ikm = [0u8; 32];
    openssl::rand::rand_bytes(&mut ikm).backend()?;
    ikm[0] = i;
    blst::min_pk::SecretKey::key_gen(&ikm, &[])
        .map_err(|_| Error::Key("blst key generation failed".into()))
}

impl BlstPairingProduct3 {
    /// Three random (G1, G2) pairs made with blst's safe API.
    ///
    /// # Errors
    /// Backend failures.
    pub fn new() -> Result<Self, Error> {
        let pair = |i: u8| -> Result<_, Error> {
            let sk = blst_secret(i)?;
            let g1: blst::blst_p1_affine = sk.sk_to_pk().into();
            let g2: blst::blst_p2_affine = sk.sign(b"floor", b"HOPSIG-FLOOR", &[]).into();
            Ok((g1, g2))
        };
        Ok(BlstPairingProduct3 {
            pairs: [pair(1)?, pair(2)?, pair(3)?],
        })
    }

    /// One product `e(a1, b1) e(a2, b2) e(a3, b3) == 1` (the answer is discarded).
    ///
    /// # Errors
    /// Never; the signature matches the other floors.
    pub fn run(&self) -> Result<(), Error> {
        let mut p = blst::Pairing::new(false, &[]);
        for (a, b) in &self.pairs {
            p.raw_aggregate(b, a);
        }
        p.commit();
        std::hint::black_box(p.finalverify(None));
        Ok(())
    }
}

/// blst's own BLS signing and aggregate verification (`blst::min_pk`, the basic
/// scheme's DST) on the inputs hopsig's `bls12381-bgls` rows use: the floor of BGLS.
pub struct BlstBgls {
    keys: Vec<blst::min_pk::SecretKey>,
    pks: Vec<blst::min_pk::PublicKey>,
}

impl BlstBgls {
    /// Wraps secret keys given as `I2OSP(SK, 32)`.
    ///
    /// # Errors
    /// [`Error::Key`] for an invalid key.
    pub fn new(secret_keys: &[[u8; 32]]) -> Result<Self, Error> {
        let keys = secret_keys
            .iter()
            .map(|b| {
                blst::min_pk::SecretKey::from_bytes(b)
                    .map_err(|_| Error::Key("invalid BLS secret key".into()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pks = keys.iter().map(blst::min_pk::SecretKey::sk_to_pk).collect();
        Ok(BlstBgls { keys, pks })
    }

    /// `Sign` of `msg` with key `i`, compressed (what a hop sends on).
    ///
    /// # Errors
    /// Never.
    pub fn sign(&self, i: usize, msg: &[u8]) -> Result<(), Error> {
        std::hint::black_box(self.keys[i].sign(msg, crate::bls::DST, &[]).compress());
        Ok(())
    }

    /// `AggregateVerify` of the compressed `signature` on `msgs` by keys `0..msgs.len()`:
    /// decompression with the subgroup check, then blst's aggregate verification.
    ///
    /// # Errors
    /// [`Error::InvalidSignature`] if it does not verify.
    pub fn aggregate_verify(&self, msgs: &[&[u8]], signature: &[u8]) -> Result<(), Error> {
        let sig =
            blst::min_pk::Signature::uncompress(signature).map_err(|_| Error::InvalidSignature)?;
        let pks: Vec<&blst::min_pk::PublicKey> = self.pks[..msgs.len()].iter().collect();
        match sig.aggregate_verify(true, msgs, crate::bls::DST, &pks, false) {
            blst::BLST_ERROR::BLST_SUCCESS => Ok(()),
            _ => Err(Error::InvalidSignature),
        }
    }
}

/// A named curve of OpenSSL's own ECDSA, for [`OpensslSignature::ec_sha256`]: the
/// floors' own names, so that the API names no OpenSSL type (`openssl::nid::Nid`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EcCurve {
    /// NIST P-256 (secp256r1, prime256v1).
    P256,
    /// NIST P-384 (secp384r1).
    P384,
    /// The binary Koblitz curve K-163 (sect163k1).
    K163,
    /// The binary Koblitz curve K-233 (sect233k1).
    K233,
    /// The binary Koblitz curve K-283 (sect283k1).
    K283,
}

impl EcCurve {
    /// OpenSSL's name for the curve.
    fn nid(self) -> Nid {
        match self {
            EcCurve::P256 => Nid::X9_62_PRIME256V1,
            EcCurve::P384 => Nid::SECP384R1,
            EcCurve::K163 => Nid::SECT163K1,
            EcCurve::K233 => Nid::SECT233K1,
            EcCurve::K283 => Nid::SECT283K1,
        }
    }
}

/// The signature algorithms 004 Table 5 compares IBAS with, as ndn-cxx uses them:
/// RSA PKCS #1 v1.5 with SHA-256, and ECDSA with SHA-256 (P-256) or SHA-384 (P-384),
/// all through OpenSSL's EVP interface.
pub struct OpensslSignature {
    key: openssl::pkey::PKey<Private>,
    digest: openssl::hash::MessageDigest,
    /// Name for tables, e.g. `RSA-2048`.
    pub name: &'static str,
}

impl OpensslSignature {
    /// RSA with a fresh `bits`-bit key (e = 65537).
    ///
    /// # Errors
    /// Backend failures.
    pub fn rsa(bits: u32, name: &'static str) -> Result<Self, Error> {
        let rsa = openssl::rsa::Rsa::generate(bits).backend()?;
        Ok(OpensslSignature {
            key: openssl::pkey::PKey::from_rsa(rsa).backend()?,
            digest: openssl::hash::MessageDigest::sha256(),
            name,
        })
    }

    /// ECDSA P-256 / SHA-256.
    ///
    /// # Errors
    /// Backend failures.
    pub fn p256() -> Result<Self, Error> {
        Self::ec(
            EcCurve::P256,
            openssl::hash::MessageDigest::sha256(),
            "ECDSA P-256",
        )
    }

    /// ECDSA P-384 / SHA-384.
    ///
    /// # Errors
    /// Backend failures.
    pub fn p384() -> Result<Self, Error> {
        Self::ec(
            EcCurve::P384,
            openssl::hash::MessageDigest::sha384(),
            "ECDSA P-384",
        )
    }

    /// ECDSA / SHA-256 on OpenSSL's own implementation of a named curve (e.g. the
    /// binary Koblitz curves, which OpenSSL treats generically).
    ///
    /// # Errors
    /// Backend failures.
    pub fn ec_sha256(curve: EcCurve, name: &'static str) -> Result<Self, Error> {
        Self::ec(curve, openssl::hash::MessageDigest::sha256(), name)
    }

    fn ec(
        curve: EcCurve,
        digest: openssl::hash::MessageDigest,
        name: &'static str,
    ) -> Result<Self, Error> {
        let group = EcGroup::from_curve_name(curve.nid()).backend()?;
        Ok(OpensslSignature {
            key: openssl::pkey::PKey::from_ec_key(EcKey::generate(&group).backend()?).backend()?,
            digest,
            name,
        })
    }

    /// A signature on `msg`.
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, Error> {
        let mut s = openssl::sign::Signer::new(self.digest, &self.key).backend()?;
        s.sign_oneshot_to_vec(msg).backend()
    }

    /// Verifies `sig` on `msg`.
    ///
    /// # Errors
    /// [`Error::InvalidSignature`] if it does not verify; backend failures.
    pub fn verify(&self, msg: &[u8], sig: &[u8]) -> Result<(), Error> {
        let mut v = openssl::sign::Verifier::new(self.digest, &self.key).backend()?;
        if v.verify_oneshot(sig, msg).backend()? {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }

    /// Security level in bits, NIST SP 800-57 Part 1 Table 2: RSA-1024 80, RSA-2048
    /// 112, RSA-3072 up to (not including) RSA-7680 128; ECDSA P-256 128, P-384 192.
    pub fn security_bits(&self) -> u32 {
        let bits = self.key.bits();
        if self.key.id() == openssl::pkey::Id::EC {
            return bits / 2;
        }
        match bits {
            0..=1024 => 80,
            1025..=2048 => 112,
            2049..=7679 => 128,
            _ => 192,
        }
    }
}

/// One SHA-256 compression: SHA-256 of a 55-byte input, the longest that fits one
/// 64-byte block with its padding (the `sha2` crate, SHA-NI where available). The floor
/// of KC-MT, whose work is hash compressions.
///
/// # Errors
/// Never.
pub fn sha256_one_compression() -> Result<(), Error> {
    std::hint::black_box(sha256(&[std::hint::black_box(&[0x5au8; 55])]));
    Ok(())
}
