//! BGR App. A as executable tests: an adversary playing the first i−1 signers feeds a
//! malformed aggregate-so-far to an honest signer who signs `m_i` without verifying,
//! and walks away with a *valid* aggregate on `m̂_i`, a message the signer never signed.
//! The attack works against LMRS (eq. 2) and Neven (Fig. 3); against BGR it fails
//! because `η_i` depends on an `r_i` the adversary cannot predict.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bgr_key, rsa_key};
use hopsig_schemes::bgr::oracles::{h as bgr_h, xor_into};
use hopsig_schemes::bgr::{Bgr, BgrAggregate, BgrParams};
use hopsig_schemes::broken::{lmrs, neven};
use hopsig_schemes::{Error, SequentialAggregate, SigningKey};

const M1: &[u8] = b"AS64500: 192.0.2.0/24";
const M2: &[u8] = b"AS64501 -> AS64502: route via 64500";
const FORGED: &[u8] = b"AS64501 -> AS66666: route via 64500";

#[test]
fn attack_succeeds_against_neven() {
    let (adv, victim) = (rsa_key(2048, 0), rsa_key(2048, 1));
    let honest_first = neven::sign(&adv, M1, None).unwrap();
    // ĥ_{1} = h_1 ⊕ H(π_2, m_2, x_1) ⊕ H(π_2, m̂_2, x_1).
    let mut malformed = honest_first.clone();
    xor_into(
        &mut malformed.h,
        &neven::eta(victim.public(), M2, Some(&honest_first.x)),
    );
    xor_into(
        &mut malformed.h,
        &neven::eta(victim.public(), FORGED, Some(&honest_first.x)),
    );
    // The victim signs M2 on the malformed aggregate without verifying it ...
    let out = neven::sign(&victim, M2, Some(&malformed)).unwrap();
    // ... and the output verifies as the victim's signature on FORGED.
    assert!(neven::verify(
        &[(adv.public(), M1), (victim.public(), FORGED)],
        &out
    ));
    assert!(!neven::verify(
        &[(adv.public(), M1), (victim.public(), M2)],
        &out
    ));
    // Sanity: honest use of Neven's scheme verifies.
    let honest = neven::sign(&victim, M2, Some(&honest_first)).unwrap();
    assert!(neven::verify(
        &[(adv.public(), M1), (victim.public(), M2)],
        &honest
    ));
}

#[test]
fn attack_succeeds_against_lmrs() {
    let (adv, victim) = (rsa_key(2048, 0), rsa_key(2048, 1));
    let k = adv.public().len();
    let history = [(adv.public(), M1)];
    let honest_first = lmrs::sign(&adv, &[], M1, None).unwrap();
    // x̂_1 = x_1 ⊕ H(π_1, π_2, m_1, m_2) ⊕ H(π_1, π_2, m_1, m̂_2).
    let mut malformed = honest_first.clone();
    xor_into(
        &mut malformed.x,
        &lmrs::full_domain_hash(&[(adv.public(), M1), (victim.public(), M2)], k),
    );
    xor_into(
        &mut malformed.x,
        &lmrs::full_domain_hash(&[(adv.public(), M1), (victim.public(), FORGED)], k),
    );
    let out = lmrs::sign(&victim, &history, M2, Some(&malformed)).unwrap();
    assert!(lmrs::verify(
        &[(adv.public(), M1), (victim.public(), FORGED)],
        &out
    ));
    assert!(!lmrs::verify(
        &[(adv.public(), M1), (victim.public(), M2)],
        &out
    ));
    let honest = lmrs::sign(&victim, &history, M2, Some(&honest_first)).unwrap();
    assert!(lmrs::verify(
        &[(adv.public(), M1), (victim.public(), M2)],
        &honest
    ));
}

#[test]
fn attack_fails_against_bgr_both_variants() {
    for params in [BgrParams::PRF_RSA2048, BgrParams::RAND_RSA2048] {
        let scheme = Bgr::new(params);
        let (adv, victim) = (bgr_key(params, 0), bgr_key(params, 1));
        let (pa, pv) = (adv.verifying_key(), victim.verifying_key());
        let first = scheme.sign(&adv, M1, None).unwrap();
        // The adversary's best guess for r_2: the r the victim used when it signed M2 on
        // the honest aggregate (the adversary may query the victim first).
        let probe = scheme.sign(&victim, M2, Some(&first)).unwrap();
        let r_guess = probe.r(2).unwrap().to_vec();
        let k = params.k();
        let (p, fp) = (params.hash_domain(), pv.rsa().fingerprint());
        let mut h_hat = *first.h();
        xor_into(&mut h_hat, &bgr_h(&p, fp, k, M2, &r_guess, Some(first.x())));
        xor_into(
            &mut h_hat,
            &bgr_h(&p, fp, k, FORGED, &r_guess, Some(first.x())),
        );
        let malformed = BgrAggregate::from_parts(
            params,
            first.x().to_vec(),
            h_hat,
            vec![first.r(1).unwrap().to_vec()],
            vec![first.b(1).unwrap()],
        )
        .unwrap();
        let out = scheme.sign(&victim, M2, Some(&malformed)).unwrap();
        // The victim drew a fresh (or input-dependent, hence different) r_2 ...
        assert_ne!(out.r(2).unwrap(), r_guess.as_slice(), "{}", params.id());
        // ... so the adversary holds no valid aggregate on the forged message,
        let forged = scheme.verify(&[(&pa, M1), (&pv, FORGED)], &out);
        assert!(
            matches!(forged, Err(Error::InvalidSignature)),
            "{}",
            params.id()
        );
        // not even with r_2 replaced by its guess.
        let patched = BgrAggregate::from_parts(
            params,
            out.x().to_vec(),
            *out.h(),
            vec![out.r(1).unwrap().to_vec(), r_guess.clone()],
            vec![out.b(1).unwrap(), out.b(2).unwrap()],
        )
        .unwrap();
        let forged = scheme.verify(&[(&pa, M1), (&pv, FORGED)], &patched);
        assert!(
            matches!(forged, Err(Error::InvalidSignature)),
            "{}",
            params.id()
        );
    }
}
