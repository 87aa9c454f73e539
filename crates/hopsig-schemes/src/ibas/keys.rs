//! PKG, public parameters, user keys and identities (004 §2.3 Setup and Private Key
//! Extraction), in the asymmetric setting: P and Q = sP in G2, identity points in G1.

use std::fmt;

use hopsig_primitives::armor::{KeyFile, KeyKind};
use hopsig_primitives::codec::to_hex;
use hopsig_primitives::hash::sha256;
use hopsig_primitives::pairing::{
    pairing_product_is_one, G1Table, G2Affine, Scalar, ScalarError, G1, G1_BYTES, G2, G2_BYTES,
    SCALAR_BYTES,
};
use hopsig_primitives::rsa::pem_block;
use hopsig_primitives::valgrind::declassify;
use zeroize::{Zeroize, Zeroizing};

use super::{h1, ID, MAX_IDENTITY_LEN};
use crate::keyblock::{expect_blocks, expect_header, fixed};
use crate::Error;

const MASTER_LABEL: &str = "HOPSIG IBAS MASTER SECRET";
const PARAMS_LABEL: &str = "HOPSIG IBAS PARAMS";
const IDENTITY_LABEL: &str = "HOPSIG IBAS IDENTITY";
const USER_KEY_LABEL: &str = "HOPSIG IBAS USER KEY";

/// The PKG's public parameters: `Q = sP` with P the standard G2 generator. Everything
/// else in 004's `params` (groups, pairing, H1–H3) is fixed by `docs/spec/ibas.md`.
#[derive(Clone)]
pub struct PublicParams {
    q: G2Affine,
    /// `−P`, kept affine so that verification converts nothing fixed.
    pub(super) neg_p: G2Affine,
}

impl fmt::Debug for PublicParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PublicParams(fingerprint {})",
            to_hex(&self.fingerprint())
        )
    }
}

impl PartialEq for PublicParams {
    fn eq(&self, other: &Self) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}

impl PublicParams {
    fn from_q(q: &G2) -> Self {
        PublicParams {
            q: q.to_affine(),
            neg_p: G2::generator().neg().to_affine(),
        }
    }

    /// `Q`, affine.
    pub(super) fn q(&self) -> &G2Affine {
        &self.q
    }

    /// The 96-byte compressed `Q`.
    pub fn to_bytes(&self) -> [u8; G2_BYTES] {
        self.q.to_compressed()
    }

    /// Reads a compressed `Q` (checked: on the curve, in G2, not the identity).
    ///
    /// # Errors
    /// [`Error::Key`] naming the failed check.
    pub fn from_bytes(bytes: &[u8; G2_BYTES]) -> Result<Self, Error> {
        let q =
            G2::from_compressed(bytes).map_err(|e| Error::Key(format!("IBAS parameter Q: {e}")))?;
        Ok(Self::from_q(&q))
    }

    /// SHA-256 of the compressed `Q`: names a PKG in messages and files.
    pub fn fingerprint(&self) -> [u8; 32] {
        sha256(&[&self.to_bytes()])
    }

    /// The parameters as a public key file.
    pub fn to_key_file(&self) -> String {
        KeyFile::render(
            ID,
            KeyKind::Public,
            &[&pem_block(PARAMS_LABEL, &self.to_bytes())],
        )
        .to_string()
    }

    /// Reads a public parameters file.
    ///
    /// # Errors
    /// [`Error::Key`] / [`Error::Armor`] for a malformed file or a bad `Q`.
    pub fn from_key_file(file: &KeyFile) -> Result<Self, Error> {
        check_header(file, KeyKind::Public)?;
        expect_blocks(file, &[PARAMS_LABEL])?;
        Self::from_bytes(&*fixed::<G2_BYTES>(file, PARAMS_LABEL)?)
    }
}

fn check_header(file: &KeyFile, kind: KeyKind) -> Result<(), Error> {
    expect_header(file, ID, kind)
}

/// The Private Key Generator: master secret `s` (zeroized on drop) and its parameters.
pub struct Pkg {
    s: Scalar,
    params: PublicParams,
}

impl fmt::Debug for Pkg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pkg({:?})", self.params)
    }
}

impl Pkg {
    /// Setup (004 §2.3): a uniformly random nonzero `s` from the OS CSPRNG (via
    /// OpenSSL) and `Q = sP`.
    ///
    /// # Errors
    /// [`Error::Key`] if the random number generator fails.
    pub fn setup() -> Result<Self, Error> {
        Self::from_draw(Scalar::random())
    }

    /// [`Pkg::setup`] with the random bytes from `fill` (for
    /// [`crate::hazmat::danger_pkg_setup_with_random_bytes`]).
    #[cfg(feature = "hazmat")]
    pub(crate) fn setup_from(
        mut fill: impl FnMut(&mut [u8; hopsig_primitives::pairing::WIDE_SCALAR_BYTES]),
    ) -> Result<Self, Error> {
        Self::from_draw(Scalar::random_from(|wide| {
            fill(wide);
            Ok(())
        }))
    }

    fn from_draw(s: Result<Scalar, ScalarError>) -> Result<Self, Error> {
        let s = s.map_err(|e| Error::Key(e.to_string()))?;
        Ok(Self::from_secret(s))
    }

    /// The PKG of master secret `s`: `Q = sP` in constant time, then declassified (the
    /// parameters are public).
    fn from_secret(s: Scalar) -> Self {
        let mut q = G2::generator().mul(&s);
        declassify(&mut q);
        let params = PublicParams::from_q(&q);
        Pkg { s, params }
    }

    /// The public parameters.
    pub fn params(&self) -> &PublicParams {
        &self.params
    }

    /// Private Key Extraction (004 §2.3): `d_j = s · H1(ID, j)` for j = 0, 1. (004
    /// prints "receives the values of P_{i,j}"; the signing equation
    /// `S'_i = r_i P_w + s P_{i,0} + c_i s P_{i,1}` shows the user receives `s P_{i,j}`,
    /// as in Gentry–Ramzan.)
    ///
    /// # Errors
    /// [`Error::IdentityLength`] for an empty identity or one over 1,024 bytes.
    pub fn extract(&self, identity: &str) -> Result<UserKey, Error> {
        check_identity(identity.as_bytes())?;
        let (d0, d1) = (h1(identity, 0).mul(&self.s), h1(identity, 1).mul(&self.s));
        let mut enc = Zeroizing::new([0u8; 2 * G1_BYTES]);
        enc[..G1_BYTES].copy_from_slice(Zeroizing::new(d0.to_compressed()).as_ref());
        enc[G1_BYTES..].copy_from_slice(Zeroizing::new(d1.to_compressed()).as_ref());
        Ok(UserKey {
            identity: identity.to_string(),
            secret: UserSecret { d0, d1, enc },
            params: self.params.clone(),
        })
    }

    /// The PKG's secret file (master secret and parameters).
    pub fn to_key_file(&self) -> Zeroizing<String> {
        let secret = pem_block(MASTER_LABEL, self.s.to_be_bytes().as_ref());
        KeyFile::render(
            ID,
            KeyKind::Secret,
            &[
                secret.as_str(),
                &pem_block(PARAMS_LABEL, &self.params.to_bytes()),
            ],
        )
    }

    /// Reads a PKG secret file; checks that `Q = sP`.
    ///
    /// # Errors
    /// [`Error::Key`] / [`Error::Armor`] for a malformed file, a bad `s`, or a `Q`
    /// that does not match it.
    pub fn from_key_file(file: &KeyFile) -> Result<Self, Error> {
        check_header(file, KeyKind::Secret)?;
        expect_blocks(file, &[MASTER_LABEL, PARAMS_LABEL])?;
        let s = Scalar::from_be_bytes(&*fixed::<SCALAR_BYTES>(file, MASTER_LABEL)?)
            .map_err(|e| Error::Key(format!("IBAS master secret: {e}")))?;
        let stated = PublicParams::from_bytes(&*fixed::<G2_BYTES>(file, PARAMS_LABEL)?)?;
        let pkg = Self::from_secret(s);
        if pkg.params != stated {
            return Err(Error::Key(
                "IBAS parameters do not match the master secret (Q ≠ sP)".into(),
            ));
        }
        Ok(pkg)
    }
}

/// The rule every identity follows (an IBAS signer, an implicit certificate's subject):
/// 1 to [`MAX_IDENTITY_LEN`] bytes.
///
/// # Errors
/// [`Error::IdentityLength`] for an empty identity or one over 1,024 bytes.
pub fn check_identity(identity: &[u8]) -> Result<(), Error> {
    if identity.is_empty() || identity.len() > MAX_IDENTITY_LEN {
        return Err(Error::IdentityLength {
            len: identity.len(),
        });
    }
    Ok(())
}

/// A user's private key `(s·H1(ID, 0), s·H1(ID, 1))` with its identity and its PKG's
/// parameters. The secret part is zeroized on drop.
pub struct UserKey {
    identity: String,
    pub(super) secret: UserSecret,
    params: PublicParams,
}

/// The secret part of a user key: `d_0`, `d_1` and their encoding
/// `enc(d_0) ‖ enc(d_1)` (two compressed G1 points, 96 bytes), computed once when the
/// key is extracted or read, so that signing hashes these bytes
/// ([`super::signer_r`]) without encoding a secret point again. All of it is
/// zeroized on drop; one contiguous value, so that the constant-time test can mark it
/// secret as a whole.
pub(crate) struct UserSecret {
    pub(super) d0: G1,
    pub(super) d1: G1,
    pub(super) enc: Zeroizing<[u8; 2 * G1_BYTES]>,
}

impl Drop for UserSecret {
    fn drop(&mut self) {
        self.d0.zeroize();
        self.d1.zeroize();
    }
}

impl fmt::Debug for UserKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UserKey({:?}, {:?})", self.identity, self.params)
    }
}

impl UserKey {
    /// The identity the key was extracted for.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The PKG parameters the key belongs to.
    pub fn params(&self) -> &PublicParams {
        &self.params
    }

    /// The secret part (for [`crate::hazmat::danger_user_key_secret_mut`]).
    #[cfg(feature = "hazmat")]
    pub(crate) fn secret_mut(&mut self) -> &mut UserSecret {
        &mut self.secret
    }

    /// The user's secret key file: identity, key, and the PKG's parameters.
    pub fn to_key_file(&self) -> Zeroizing<String> {
        let key = pem_block(USER_KEY_LABEL, self.secret.enc.as_ref());
        KeyFile::render(
            ID,
            KeyKind::Secret,
            &[
                &pem_block(IDENTITY_LABEL, self.identity.as_bytes()),
                key.as_str(),
                &pem_block(PARAMS_LABEL, &self.params.to_bytes()),
            ],
        )
    }

    /// Reads a user key file and checks the key against the parameters:
    /// `e(d_j, P) = e(H1(ID, j), Q)` for j = 0, 1 (two pairing products).
    ///
    /// # Errors
    /// [`Error::Key`] / [`Error::Armor`] for a malformed file, a bad point, or a key
    /// that this PKG did not extract for this identity.
    pub fn from_key_file(file: &KeyFile) -> Result<Self, Error> {
        check_header(file, KeyKind::Secret)?;
        expect_blocks(file, &[IDENTITY_LABEL, USER_KEY_LABEL, PARAMS_LABEL])?;
        let identity = std::str::from_utf8(&file.block(IDENTITY_LABEL)?.der)
            .map_err(|_| Error::Key("identity is not UTF-8".into()))?
            .to_string();
        check_identity(identity.as_bytes())?;
        // The file's bytes are enc(d_0) ‖ enc(d_1) as extraction makes them: the
        // decoder accepts only the canonical compressed encoding of a point.
        let enc = fixed::<{ 2 * G1_BYTES }>(file, USER_KEY_LABEL)?;
        let point = |half: &[u8]| -> Result<G1, Error> {
            let mut one = Zeroizing::new([0u8; G1_BYTES]);
            one.copy_from_slice(half);
            G1::from_compressed(&one).map_err(|e| Error::Key(format!("IBAS user key: {e}")))
        };
        let key = UserKey {
            secret: UserSecret {
                d0: point(&enc[..G1_BYTES])?,
                d1: point(&enc[G1_BYTES..])?,
                enc,
            },
            params: PublicParams::from_bytes(&*fixed::<G2_BYTES>(file, PARAMS_LABEL)?)?,
            identity,
        };
        for (j, d) in [(0u8, &key.secret.d0), (1, &key.secret.d1)] {
            let ok = pairing_product_is_one(&[
                (&d.to_affine(), &key.params.neg_p),
                (&h1(&key.identity, j).to_affine(), key.params.q()),
            ]);
            if !ok {
                return Err(Error::Key(format!(
                    "IBAS user key does not belong to identity {:?} under these parameters",
                    key.identity
                )));
            }
        }
        Ok(key)
    }
}

/// A signer's identity as a verifier holds it: the string and its two hashed points
/// `P_{ID,j} = H1(ID, j)`, computed once. [`Identity::prepared`] also builds a
/// fixed-base table for `P_{ID,1}`, which makes each verification's `c_i · P_{ID,1}`
/// about 2.5 times faster, for verifiers that see the same identities again and
/// again (about 254 KiB per identity).
#[derive(Debug)]
pub struct Identity {
    name: String,
    pub(super) p0: G1,
    pub(super) p1: G1,
    pub(super) table: Option<G1Table>,
}

impl Identity {
    /// The identity `name`, hashed.
    ///
    /// # Errors
    /// [`Error::IdentityLength`] for an empty identity or one over 1,024 bytes.
    pub fn new(name: &str) -> Result<Self, Error> {
        check_identity(name.as_bytes())?;
        Ok(Identity {
            name: name.to_string(),
            p0: h1(name, 0),
            p1: h1(name, 1),
            table: None,
        })
    }

    /// The identity `name`, hashed, with the fixed-base table.
    ///
    /// # Errors
    /// As [`Identity::new`].
    pub fn prepared(name: &str) -> Result<Self, Error> {
        let mut id = Self::new(name)?;
        id.table = Some(G1Table::new(&id.p1));
        Ok(id)
    }

    /// The identity string.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `c · P_{ID,1}` (public inputs: variable time allowed).
    pub(super) fn mul_p1_vartime(&self, c: &Scalar) -> G1 {
        match &self.table {
            Some(t) => t.mul_vartime(c),
            None => self.p1.mul(c),
        }
    }
}
