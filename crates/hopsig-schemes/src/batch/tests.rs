//! The differential harness run on the CPU backend against the single-item
//! verification, on mixes of valid, invalid, wrong-key and malformed items; and the
//! harness itself shown to catch a backend that lies.

use proptest::prelude::*;

use super::*;
use crate::concat::{BaseSignature, EcdsaK163, EcdsaP256, Rsa2048Pkcs1};
use crate::pla::header::{certify, KeyMaterial, PlaCurve, PlaHeader, TtpDirectory};
use crate::pla::icnr::{self, Ttp};
use crate::pla::koblitz::K163;
use crate::primitives::codec::Codec;

/// What an item of a test mix is, and so what it must verify to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Valid,
    OtherMessage,
    WrongKey,
    /// The signature's last octet changed.
    Flipped,
    /// Not a signature at all.
    Garbage,
    Empty,
    /// Cut short by one octet.
    Truncated,
}

const CASES: [Case; 7] = [
    Case::Valid,
    Case::OtherMessage,
    Case::WrongKey,
    Case::Flipped,
    Case::Garbage,
    Case::Empty,
    Case::Truncated,
];

/// One owned item of the mix: key index, message, signature.
struct Owned {
    key: usize,
    message: Vec<u8>,
    signature: Vec<u8>,
}

fn make<B: BaseSignature>(sks: &[B::SecretKey], case: Case, key: usize, msg: &[u8]) -> Owned {
    let signer = key % sks.len();
    let mut signature = B::sign(&sks[signer], msg).unwrap();
    let (mut key, mut message) = (signer, msg.to_vec());
    match case {
        Case::Valid => {}
        Case::OtherMessage => message.push(0x55),
        Case::WrongKey => key = (signer + 1) % sks.len(),
        Case::Flipped => *signature.last_mut().unwrap() ^= 1,
        Case::Garbage => signature = b"not a signature".to_vec(),
        Case::Empty => signature.clear(),
        Case::Truncated => {
            signature.pop();
        }
    }
    Owned {
        key,
        message,
        signature,
    }
}

fn items<'a, B: BaseSignature>(pks: &'a [B::PublicKey], owned: &'a [Owned]) -> Vec<Signed<'a, B>> {
    owned
        .iter()
        .map(|o| Signed {
            key: &pks[o.key],
            message: &o.message,
            signature: &o.signature,
        })
        .collect()
}

fn keys<B: BaseSignature>(n: usize) -> (Vec<B::SecretKey>, Vec<B::PublicKey>) {
    let sks: Vec<_> = (0..n).map(|_| B::generate().unwrap()).collect();
    let pks = sks.iter().map(|sk| B::public(sk).unwrap()).collect();
    (sks, pks)
}

/// Every case, in several orders, against the reference and the expected verdicts, with
/// every backend of the kind; the default one is `default_name`.
fn every_case<B: BaseSignature>(default_name: &str) {
    let default = default_backend::<Signatures<B>>();
    assert_eq!(default.name(), default_name);
    assert!(backend::<Signatures<B>>("cpu").is_some());
    for backend in Signatures::<B>::backends() {
        every_case_with(*backend);
    }
}

/// Every case, in several orders, through `backend`.
fn every_case_with<B: BaseSignature>(backend: &dyn BatchVerify<Signatures<B>>) {
    let (sks, pks) = keys::<B>(2);
    let owned: Vec<Owned> = CASES
        .iter()
        .chain(CASES.iter().rev())
        .enumerate()
        .map(|(i, &c)| make::<B>(&sks, c, i, format!("message {i}").as_bytes()))
        .collect();
    let expected: Vec<bool> = CASES
        .iter()
        .chain(CASES.iter().rev())
        .map(|&c| c == Case::Valid)
        .collect();
    let items = items::<B>(&pks, &owned);
    assert_eq!(backend.verify_batch(&items), expected, "{} {}", B::ID, backend.name());
    differential(backend, &items).unwrap();
    // Empty and single batches.
    assert!(backend.verify_batch(&[]).is_empty());
    for (item, &e) in items.iter().zip(&expected) {
        assert_eq!(backend.verify_batch(std::slice::from_ref(item)), [e]);
    }
}

#[test]
fn multi_buffer_agrees_with_single_verification() {
    // Listed or not, on the IFMA code (portable where the processor lacks it) and on
    // the portable code, with OpenSSL taking small batches and without.
    for backend in [MultiBuffer::AVX512IFMA, MultiBuffer::PORTABLE] {
        every_case_with::<EcdsaP256>(&backend);
        every_case_with::<EcdsaP256>(&backend.with_min_batch(0));
    }
}

#[test]
fn cpu_agrees_with_single_verification_ecdsa_p256() {
    // The multi-buffer backend leads where hopsig-p256 runs its IFMA code (issue 28).
    let default = match hopsig_p256::active_backend() {
        hopsig_p256::Backend::Avx512Ifma => "avx512ifma",
        hopsig_p256::Backend::Portable => "cpu",
    };
    every_case::<EcdsaP256>(default);
}

#[test]
fn cpu_agrees_with_single_verification_rsa2048() {
    every_case::<Rsa2048Pkcs1>("cpu");
}

#[test]
fn backends_are_found_by_name() {
    assert_eq!(
        backend::<Signatures<EcdsaP256>>("cpu").map(|b| b.name()),
        Some("cpu")
    );
    assert!(backend::<Signatures<EcdsaP256>>("gpu").is_none());
    assert_eq!(Signatures::<EcdsaP256>::name(), "ecdsa-p256-concat");
    assert_eq!(PlaPackets::<K163>::name(), "K163");
}

/// A backend that is wrong in a given way, to show the harness catches it.
struct Liar(fn(Vec<bool>) -> Vec<bool>);

impl<K: Kind> BatchVerify<K> for Liar {
    fn name(&self) -> &'static str {
        "liar"
    }

    fn verify_batch(&self, items: &[K::Item<'_>]) -> Vec<bool> {
        (self.0)(BatchVerify::<K>::verify_batch(&Cpu, items))
    }
}

#[test]
fn the_harness_catches_a_wrong_backend() {
    let (sks, pks) = keys::<EcdsaP256>(2);
    let owned: Vec<Owned> = CASES
        .iter()
        .enumerate()
        .map(|(i, &c)| make::<EcdsaP256>(&sks, c, i, b"m"))
        .collect();
    let items = items::<EcdsaP256>(&pks, &owned);
    let all_valid = Liar(|v| vec![true; v.len()]);
    assert_eq!(
        differential::<Signatures<EcdsaP256>>(&all_valid, &items),
        Err(Mismatch::Verdict {
            backend: "liar",
            index: 1,
            verdict: true,
            reference: false
        })
    );
    let drops_last = Liar(|mut v| {
        v.pop();
        v
    });
    assert_eq!(
        differential::<Signatures<EcdsaP256>>(&drops_last, &items),
        Err(Mismatch::Count {
            backend: "liar",
            items: 7,
            verdicts: 6
        })
    );
    let shifted = Liar(|mut v| {
        v.rotate_right(1);
        v
    });
    assert!(differential::<Signatures<EcdsaP256>>(&shifted, &items).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random mixes of every case, random keys and messages: the batch verdicts are the
    /// single verdicts, and exactly the valid items verify.
    #[test]
    fn random_mixes_of_p256_items(
        picks in proptest::collection::vec((0..CASES.len(), 0..3usize, proptest::collection::vec(any::<u8>(), 0..80)), 0..24)
    ) {
        thread_local! {
            static KEYS: (Vec<<EcdsaP256 as BaseSignature>::SecretKey>, Vec<<EcdsaP256 as BaseSignature>::PublicKey>) = keys::<EcdsaP256>(3);
        }
        KEYS.with(|(sks, pks)| {
            let owned: Vec<Owned> = picks
                .iter()
                .map(|(c, k, m)| make::<EcdsaP256>(sks, CASES[*c], *k, m))
                .collect();
            let items = items::<EcdsaP256>(pks, &owned);
            let verdicts = BatchVerify::<Signatures<EcdsaP256>>::verify_batch(&Cpu, &items);
            let expected: Vec<bool> = picks.iter().map(|(c, _, _)| CASES[*c] == Case::Valid).collect();
            prop_assert_eq!(&verdicts, &expected);
            prop_assert_eq!(differential::<Signatures<EcdsaP256>>(&Cpu, &items), Ok(()));
            Ok(())
        })?;
    }
}

/// A signed K-163 PLA header of either layout over `payload`, and the TTP directory.
fn pla_packet(implicit: bool, payload: &[u8]) -> (Vec<u8>, TtpDirectory<K163>) {
    const SRC: &[u8] = b"2001:db8::17";
    let (key, material, ttp_public) = if implicit {
        let ttp = Ttp::<K163>::setup().unwrap();
        let blind = icnr::blind::<K163>().unwrap();
        let issued = ttp.issue(SRC, blind.request()).unwrap();
        let key = icnr::finalkey(&blind, &issued, SRC, ttp.public()).unwrap();
        (
            key,
            KeyMaterial::Implicit(issued.cert.clone()),
            *ttp.public(),
        )
    } else {
        let ttp = EcdsaK163::generate().unwrap();
        let user = EcdsaK163::generate().unwrap();
        let material = KeyMaterial::Certificate {
            key: user.public_point().to_sec1(true),
            ttp_sig: certify(&ttp, user.public_point()).unwrap(),
        };
        (user, material, *ttp.public_point())
    };
    let mut h = PlaHeader {
        curve: PlaCurve::of::<K163>().unwrap(),
        ttp_id: 7,
        sequence: 1,
        timestamp: 1_800_000_000,
        key: material,
        signature: vec![],
    };
    h.sign(&key, payload).unwrap();
    let mut dir = TtpDirectory::default();
    dir.insert(7, ttp_public);
    (h.encoding().unwrap(), dir)
}

#[test]
fn cpu_agrees_with_the_fused_pla_check() {
    let identity = b"2001:db8::17".to_vec();
    // (header, payload, identity, directory, whether it verifies)
    let mut dirs = Vec::new();
    let mut owned = Vec::new();
    for implicit in [true, false] {
        let (encoded, dir) = pla_packet(implicit, b"payload");
        let own = dirs.len();
        dirs.push(dir);
        // Another TTP's key: the implicit certificate does not extract to the
        // signer's key; the certificate's TTP signature does not verify.
        let other = dirs.len();
        dirs.push(pla_packet(implicit, b"x").1);
        let mut flipped = encoded.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let other_identity = b"2001:db8::18".to_vec();
        owned.push((
            encoded.clone(),
            &b"payload"[..],
            identity.clone(),
            own,
            true,
        ));
        owned.push((
            encoded.clone(),
            &b"payload!"[..],
            identity.clone(),
            own,
            false,
        ));
        owned.push((flipped, &b"payload"[..], identity.clone(), own, false));
        owned.push((
            encoded.clone(),
            &b"payload"[..],
            identity.clone(),
            other,
            false,
        ));
        // The identity matters to an implicit certificate only.
        owned.push((encoded, &b"payload"[..], other_identity, own, !implicit));
    }
    let mut items = Vec::new();
    let mut expected = Vec::new();
    for (encoded, payload, identity, dir, valid) in &owned {
        let header = PlaHeader::decode(encoded).unwrap();
        let (ttp_key, ttp_table) = dirs[*dir].get(7).unwrap();
        items.push(PlaPacket::<K163> {
            header,
            encoded,
            payload: vec![payload],
            identity: identity.clone(),
            ttp_key,
            ttp_table,
        });
        expected.push(*valid);
    }
    let backend = default_backend::<PlaPackets<K163>>();
    assert_eq!(backend.verify_batch(&items), expected);
    differential(backend, &items).unwrap();
}
