//! Suites with one independent signature per Signature Segment (RFC 8205 §3.2, §4.2,
//! §5.2), over any ordinary signature scheme of hopsig-schemes
//! ([`BaseSignature`]): suite 1 of RFC 8608 is [`ECDSA_P256_SHA256`].
//!
//! The signer signs its hop's octets of Figure 8 and prepends a Signature Segment of
//! its SKI and the signature. The validator walks the segments from the newest (N = K)
//! to the origin's (N = 1), as §5.2 orders it: step 2 looks up the keys of (AS(N),
//! SKI(N)) — none marks the block 'Not Valid' —, steps 3–4 verify the signature over
//! hop N's octets with each key found until one accepts — none marks the block 'Not
//! Valid'. The signatures of a block are independent, so steps 3–4 hand them to
//! hopsig-schemes' batch verifier together (`hopsig_schemes::batch`), and the first
//! fault of the walk is reported. A signature that is not in the scheme's canonical
//! encoding (for suite 1: DER `ECDSA-Sig-Value`, RFC 8608 §4 / RFC 3279 §2.2.3, r and
//! s in [1, n−1]) verifies under no key: docs/spec/bgpsec.md, "Signing and validation".

use std::any::Any;
use std::borrow::Cow;
use std::marker::PhantomData;

use hopsig_primitives::armor::{KeyKind, PlainKey};
use hopsig_primitives::codec::Reader;
use hopsig_schemes::batch::{self, Signatures, Signed};
use hopsig_schemes::concat::{BaseSignature, EcdsaP256, Rsa2048Pkcs1};
use openssl::pkey::PKey;
use zeroize::Zeroizing;

use super::{AlgorithmSuite, BlockFault, KeyError, SigningKey, VerifyingKey};
use crate::cache::{CheckKey, Lookup, SignatureCache};
use crate::packet::{SecurePathSegment, SignatureBlock, SignatureSegment};
use crate::prefetch::{Check, Checks, Verdicts};
use crate::router_key::{KeyLookup, RouterKey};
use crate::sign::SignError;
use crate::signature_input::SignatureInput;

/// Algorithm suite 1 (RFC 8608 §2.2.1, §3, §4): ECDSA on P-256 over the SHA-256 digest
/// of each hop's octets, DER signatures, uncompressed P-256 router keys.
pub static ECDSA_P256_SHA256: PerSegment<EcdsaP256> = PerSegment::new(1, "ecdsa-p256-sha256");

/// Experimental suite 0xF8 (RFC 8608 §2.1's experimentation range): suite 1 with one
/// RSA-2048 RSASSA-PKCS1-v1_5 SHA-256 signature (RFC 8017 §8.2) per segment, BGR
/// Table 1's "2048-bit RSA" column (docs/spec/bgpsec-bgr.md §9).
pub static RSA2048_PKCS1_SHA256: PerSegment<Rsa2048Pkcs1> =
    PerSegment::new(0xf8, "rsa2048-pkcs1-sha256");

/// Signs for suite `id` with `key`'s secret, a `K`, through `sign`, and prepends the
/// Signature Segment of the key's SKI and the signature to `block` (RFC 8205 §4.2).
pub(crate) fn sign_segment<K: Any>(
    id: u8,
    key: &SigningKey,
    block: &mut SignatureBlock<'_>,
    sign: impl FnOnce(&K) -> Result<Vec<u8>, SignError>,
) -> Result<(), SignError> {
    let (Some(secret), true) = (key.downcast::<K>(), key.suite() == id) else {
        return Err(SignError::KeyForOtherSuite {
            key: key.suite(),
            suite: id,
        });
    };
    if block.suite != id {
        return Err(SignError::BlockForOtherSuite {
            block: block.suite,
            suite: id,
        });
    }
    let signature = sign(secret)?;
    block.segments.insert(
        0,
        SignatureSegment {
            ski: *key.ski(),
            signature: Cow::Owned(signature),
        },
    );
    Ok(())
}

/// A suite of independent `B` signatures, one per Signature Segment.
pub struct PerSegment<B> {
    id: u8,
    name: &'static str,
    scheme: PhantomData<fn() -> B>,
}

impl<B> PerSegment<B> {
    /// The suite with identifier `id` and name `name`.
    pub const fn new(id: u8, name: &'static str) -> PerSegment<B> {
        PerSegment {
            id,
            name,
            scheme: PhantomData,
        }
    }
}

impl<B: BaseSignature> PerSegment<B> {
    /// Whether `signature` is exactly one signature in the scheme's canonical encoding.
    fn canonical(signature: &[u8]) -> bool {
        let mut r = Reader::new(signature);
        B::read_signature(&mut r).is_ok() && r.remaining() == 0
    }

    fn signing_key(&self, secret: B::SecretKey) -> Result<SigningKey, KeyError> {
        // The SubjectPublicKeyInfo in DER, through OpenSSL's reading of the scheme's
        // PEM (BaseSignature gives PEM only).
        let pem = B::public_to_pem(&B::public(&secret)?);
        let spki = PKey::public_key_from_pem(pem.as_bytes())
            .and_then(|k| k.public_key_to_der())
            .map_err(KeyError::openssl)?;
        SigningKey::new(self.id, spki, secret)
    }
}

impl<B: BaseSignature> AlgorithmSuite for PerSegment<B> {
    fn id(&self) -> u8 {
        self.id
    }

    fn name(&self) -> &'static str {
        self.name
    }

    fn generate(&self) -> Result<SigningKey, KeyError> {
        self.signing_key(B::generate()?)
    }

    fn signing_key_from_pkcs8(&self, der: &[u8]) -> Result<SigningKey, KeyError> {
        self.signing_key(B::secret_from_der(der)?)
    }

    fn secret_key_file(&self, key: &SigningKey) -> Result<Zeroizing<String>, KeyError> {
        Ok(B::secret_to_pem(key.secret_of::<B::SecretKey>(self)?)?)
    }

    fn signing_key_from_file(&self, text: &[u8]) -> Result<SigningKey, KeyError> {
        let plain = PlainKey::parse(text).map_err(hopsig_schemes::Error::from)?;
        if plain.kind != KeyKind::Secret {
            return Err(KeyError::Scheme(hopsig_schemes::Error::WrongKeyKind {
                expected: KeyKind::Secret,
                found: plain.kind,
            }));
        }
        self.signing_key_from_pkcs8(&plain.der)
    }

    fn verifying_key_from_spki(&self, spki: &[u8]) -> Result<VerifyingKey, KeyError> {
        Ok(VerifyingKey::new(self.id, B::public_from_der(spki)?))
    }

    /// RFC 8205 §4.2: "populate the Signature field … with this digital signature",
    /// the SKI field with the key's SKI; the segment is prepended.
    fn sign(
        &self,
        key: &SigningKey,
        input: &[u8],
        block: &mut SignatureBlock<'_>,
    ) -> Result<(), SignError> {
        sign_segment(self.id, key, block, |secret: &B::SecretKey| {
            Ok(B::sign(secret, input)?)
        })
    }

    /// RFC 8205 §5.2 steps 1–4, newest segment first. The segments' signatures are
    /// independent, so they are checked together, as one batch of the scheme's
    /// [`batch::default_backend`] ([`verify_segments`]); the fault reported is the
    /// one the walk meets first.
    fn validate(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
    ) -> Result<(), BlockFault> {
        self.validate_with(block, secure_path, input, keys, None, &Verdicts::none())
    }

    /// As [`AlgorithmSuite::validate`], each segment's check (key, signature, digest
    /// of hop N's octets) asked of `cache` first: a path that shares upstream segments
    /// with one validated before verifies only its new signatures.
    fn validate_cached(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
        cache: &SignatureCache,
    ) -> Result<(), BlockFault> {
        self.validate_with(
            block,
            secure_path,
            input,
            keys,
            Some(cache),
            &Verdicts::none(),
        )
    }

    /// The checks of [`verify_segments`]' first round — each segment's signature under
    /// its first key parsed for this suite, for the segments step 2 finds keys for up
    /// to the first it finds none for, with octets and a canonical signature —, but
    /// those `cache` holds.
    fn collect_checks<'c>(
        &self,
        block: &'c SignatureBlock<'_>,
        secure_path: &'c [SecurePathSegment],
        input: &'c SignatureInput,
        keys: &'c dyn KeyLookup,
        cache: Option<&SignatureCache>,
        checks: &mut Checks<'c>,
    ) {
        for (n, segment, signature) in super::newest_first(secure_path, block) {
            let Ok(found) = super::router_keys_of(keys, n, segment, signature) else {
                break;
            };
            let Some(octets) = input
                .hop(n)
                .filter(|_| Self::canonical(&signature.signature))
            else {
                continue;
            };
            let Some(key) = found.iter().find(|k| parsed::<B>(k, self.id).is_some()) else {
                continue;
            };
            let check = Check {
                suite: self.id,
                key,
                octets,
                signature: &signature.signature,
            };
            let cached = cache.is_some_and(|c| {
                c.is_on()
                    && c.contains(&CheckKey::one(self.id, key.spki(), octets, check.signature))
            });
            if !cached {
                checks.push(check);
            }
        }
    }

    /// `checks` in one call of the scheme's [`batch::default_backend`].
    fn verify_checks(&self, checks: &[Check<'_>]) -> Vec<bool> {
        let items: Option<Vec<Signed<'_, B>>> = checks
            .iter()
            .map(|c| {
                Some(Signed {
                    key: parsed::<B>(c.key, self.id)?,
                    message: c.octets,
                    signature: c.signature,
                })
            })
            .collect();
        match items {
            Some(items) if !items.is_empty() => {
                batch::default_backend::<Signatures<B>>().verify_batch(&items)
            }
            _ => Vec::new(),
        }
    }

    fn validate_batched(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
        cache: Option<&SignatureCache>,
        verdicts: &Verdicts<'_>,
    ) -> Result<(), BlockFault> {
        self.validate_with(block, secure_path, input, keys, cache, verdicts)
    }

    fn verifier(&self) -> &'static str {
        batch::default_backend::<Signatures<B>>().name()
    }
}

/// `key` as suite `id` parsed it, if it is a `B` key.
fn parsed<B: BaseSignature>(key: &RouterKey, id: u8) -> Option<&B::PublicKey> {
    key.for_suite(id)
        .and_then(VerifyingKey::downcast::<B::PublicKey>)
}

impl<B: BaseSignature> PerSegment<B> {
    /// RFC 8205 §5.2 steps 1–4 of [`AlgorithmSuite::validate`], with or without a
    /// cache, a check in `verdicts` answered from there.
    fn validate_with(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
        cache: Option<&SignatureCache>,
        verdicts: &Verdicts<'_>,
    ) -> Result<(), BlockFault> {
        // Step 2 for each segment, newest first, up to the first without a key: the
        // walk would stop there, so no signature past it is looked at.
        let mut segments = Vec::with_capacity(secure_path.len());
        let mut no_key = None;
        for (n, segment, signature) in super::newest_first(secure_path, block) {
            match super::router_keys_of(keys, n, segment, signature) {
                Ok(found) => segments.push(Segment {
                    n,
                    asn: segment.asn,
                    // Steps 3–4 need the octets of the hop and a canonical signature.
                    octets: input
                        .hop(n)
                        .filter(|_| Self::canonical(&signature.signature)),
                    signature: &signature.signature,
                    keys: found,
                }),
                Err(fault) => {
                    no_key = Some(fault);
                    break;
                }
            }
        }
        let verified = verify_segments::<B>(self.id, &segments, cache, verdicts);
        match segments.iter().zip(verified).find(|(_, ok)| !ok) {
            Some((s, _)) => Err(BlockFault::BadSignature {
                segment: s.n,
                asn: s.asn,
            }),
            None => no_key.map_or(Ok(()), Err),
        }
    }
}

/// One Signature Segment to verify (RFC 8205 §5.2 steps 3–4).
struct Segment<'a> {
    /// N (1 = origin).
    n: usize,
    /// AS(N).
    asn: u32,
    /// Hop N's signed octets, `None` when it cannot verify (no such hop, or a
    /// signature not in canonical encoding).
    octets: Option<&'a [u8]>,
    signature: &'a [u8],
    /// The router keys of (AS(N), SKI(N)).
    keys: &'a [RouterKey],
}

/// Whether each segment's signature verifies under one of its keys parsed for suite
/// `id`, in one batch per round: round r tries each unverified segment's r-th key, so a
/// path whose (AS, SKI)s have one key each (every real one) is one batch, and a
/// signature is tried under a further key only if the earlier ones refused it, as the
/// walk one at a time does. A 'Valid' block costs what the walk costs; a 'Not Valid'
/// one may cost more, its signatures past the first bad one being verified too.
///
/// With a `cache`, each (key, signature, octets) is asked of it first: a hit is
/// verified without the batch, and each check of the batch that verified is inserted
/// (only those: [`crate::cache`] says why nothing else may be). The keys asked about
/// are those step 2 found in the current view, so a key no longer there is never
/// looked up. A check missed by the cache whose verdict is in `verdicts` (verified
/// in a batch of many UPDATEs, [`crate::prefetch`]) takes that verdict instead of
/// being verified again, and is inserted as if it had been.
fn verify_segments<B: BaseSignature>(
    id: u8,
    segments: &[Segment<'_>],
    cache: Option<&SignatureCache>,
    verdicts: &Verdicts<'_>,
) -> Vec<bool> {
    let backend = batch::default_backend::<Signatures<B>>();
    let mut verified = vec![false; segments.len()];
    for round in 0.. {
        // Each item's segment, and what to insert in the cache if it verifies.
        let mut at = Vec::new();
        let mut items = Vec::new();
        let mut tried = false;
        for (i, s) in segments.iter().enumerate() {
            let Some(message) = s.octets.filter(|_| !verified[i]) else {
                continue;
            };
            let key = s
                .keys
                .iter()
                .filter_map(|k| Some((k, parsed::<B>(k, id)?)))
                .nth(round);
            let Some((router_key, key)) = key else {
                continue;
            };
            tried = true;
            let pending = match cache {
                Some(cache) => {
                    match cache
                        .lookup(|| CheckKey::one(id, router_key.spki(), message, s.signature))
                    {
                        Lookup::Hit => {
                            verified[i] = true;
                            continue;
                        }
                        Lookup::Miss(p) => Some(p),
                    }
                }
                None => None,
            };
            // Answered from the batch's verdicts, or verified below; either way told
            // to the cache in this order, after the round's lookups, as alone.
            let known = verdicts.get(&Check {
                suite: id,
                key: router_key,
                octets: message,
                signature: s.signature,
            });
            at.push((i, pending, known));
            if known.is_none() {
                items.push(Signed {
                    key,
                    message,
                    signature: s.signature,
                });
            }
        }
        if !tried {
            break;
        }
        let mut answers = if items.is_empty() {
            vec![]
        } else {
            backend.verify_batch(&items)
        }
        .into_iter();
        for (i, pending, known) in at {
            let Some(ok) = known.or_else(|| answers.next()) else {
                break;
            };
            verified[i] = ok;
            if let (true, Some(cache), Some(p)) = (ok, cache, pending) {
                cache.verified(p);
            }
        }
    }
    verified
}
