//! BGPsec router certificates (RFC 8209): the (AS, SKI, key) triples one certifies.
//!
//! hopsig reads the certificate's fields and checks the RFC 8209 §3.1 / §3.3 profile —
//! the fields a router needs and the extensions a router certificate must and must not
//! carry. It does **not** validate the certification path to a trust anchor, nor
//! revocation (RFC 6487 §7): that is the relying party's work, and a folder of router
//! certificates given to hopsig is trusted as an RPKI cache's output is. The X.509
//! structure is parsed by `x509-parser`; the RFC 3779 AS identifiers, which it leaves
//! undecoded, are read here.

use hopsig_primitives::codec::{DecodeError, Reader};
use x509_parser::extensions::ParsedExtension;
use x509_parser::prelude::{FromDer, X509Certificate};

use super::der::{any, as_number, der};
use super::{ski_of_spki, RouterKey, Ski};

/// id-pe-autonomousSysIds (RFC 3779 §3.2.1, RFC 6487 §4.8.11).
const AS_RESOURCES: &str = "1.3.6.1.5.5.7.1.8";
/// id-pe-ipAddrBlocks (RFC 3779 §2.2.1): MUST NOT be in a router certificate.
const IP_RESOURCES: &str = "1.3.6.1.5.5.7.1.7";
/// id-pe-subjectInfoAccess (RFC 5280 §4.2.2.2): MUST NOT be in a router certificate.
const SUBJECT_INFO_ACCESS: &str = "1.3.6.1.5.5.7.1.11";
/// id-kp-bgpsec-router (RFC 8209 §3.1.3.2).
const BGPSEC_ROUTER: &str = "1.3.6.1.5.5.7.3.30";
/// The most AS numbers one certificate may name, ranges counted AS by AS: a router key
/// speaks for its own AS or a few (RFC 8209 §3.1.1); this bounds the memory a hostile
/// range could claim.
pub const MAX_ASNS: u64 = 65_536;

/// What one router certificate certifies: its AS numbers, SKI and public key, and
/// when it is valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterCertificate {
    asns: Vec<u32>,
    ski: Ski,
    spki: Vec<u8>,
    not_before: i64,
    not_after: i64,
}

/// Why a router certificate was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CertificateError {
    /// Not a DER X.509 certificate (x509-parser's message), or bytes after it.
    #[error("not an X.509 certificate: {0}")]
    X509(String),
    /// It breaks the router certificate profile of RFC 8209 §3.1 / §3.3.
    #[error("not a BGPsec router certificate (RFC 8209 {section}): {problem}")]
    Profile {
        /// The section of RFC 8209 (or the RFC it refers to) broken.
        section: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The AS Resources extension does not decode (RFC 3779 §3.2.3).
    #[error("AS Resources extension (RFC 3779 §3.2.3): {0}")]
    AsResources(DecodeError),
}

fn profile(section: &'static str, problem: impl Into<String>) -> CertificateError {
    CertificateError::Profile {
        section,
        problem: problem.into(),
    }
}

impl RouterCertificate {
    /// Reads a DER router certificate and checks its profile: an X.509 v3 certificate
    /// with a Subject Key Identifier that is the SHA-1 of its key (RFC 6487 §4.8.2), an
    /// Extended Key Usage that includes id-kp-bgpsec-router and is not critical
    /// (§3.1.3.2), no Basic Constraints (§3.1.3.1), no Subject Information Access
    /// (§3.1.3.3), no IP Resources (§3.1.3.4), and a critical AS Resources extension
    /// naming one or more AS numbers, without "inherit" (§3.1.3.5) and without the RDI
    /// element (RFC 6487 §4.8.11). Ranges are accepted and counted AS by AS, up to
    /// [`MAX_ASNS`]; they must be in RFC 3779's canonical order.
    ///
    /// # Errors
    /// [`CertificateError`] naming the first fault.
    pub fn from_der(der: &[u8]) -> Result<RouterCertificate, CertificateError> {
        let (rest, cert) =
            X509Certificate::from_der(der).map_err(|e| CertificateError::X509(e.to_string()))?;
        if !rest.is_empty() {
            return Err(CertificateError::X509(format!(
                "{} bytes after the certificate",
                rest.len()
            )));
        }
        if cert.version().0 != 2 {
            return Err(profile(
                "§3.1 (RFC 6487 §4.1)",
                "not an X.509 v3 certificate",
            ));
        }
        let spki = cert.public_key().raw.to_vec();
        let computed = ski_of_spki(&spki)
            .map_err(|e| profile("§3.1.2", format!("subjectPublicKeyInfo: {e}")))?;
        let mut ski = None;
        let mut eku = None;
        let mut asns = None;
        for ext in cert.extensions() {
            let oid = ext.oid.to_id_string();
            match ext.parsed_extension() {
                ParsedExtension::SubjectKeyIdentifier(id) => ski = Some(id.0),
                ParsedExtension::ExtendedKeyUsage(usage) => {
                    if ext.critical {
                        return Err(profile("§3.1.3.2", "Extended Key Usage is critical"));
                    }
                    eku = Some(
                        usage
                            .other
                            .iter()
                            .any(|o| o.to_id_string() == BGPSEC_ROUTER),
                    );
                }
                ParsedExtension::BasicConstraints(_) => {
                    return Err(profile("§3.1.3.1", "Basic Constraints present"));
                }
                _ if oid == SUBJECT_INFO_ACCESS => {
                    return Err(profile("§3.1.3.3", "Subject Information Access present"));
                }
                _ if oid == IP_RESOURCES => {
                    return Err(profile("§3.1.3.4", "IP Resources present"));
                }
                _ if oid == AS_RESOURCES => {
                    if !ext.critical {
                        return Err(profile(
                            "§3.1.3.5 (RFC 6487 §4.8.11)",
                            "AS Resources not critical",
                        ));
                    }
                    asns = Some(as_identifiers(ext.value)?);
                }
                ParsedExtension::ParseError { error } => {
                    return Err(CertificateError::X509(format!("extension {oid}: {error}")));
                }
                _ => {}
            }
        }
        let ski =
            ski.ok_or_else(|| profile("§3.1 (RFC 6487 §4.8.2)", "no Subject Key Identifier"))?;
        if ski != computed {
            return Err(profile(
                "§3.1 (RFC 6487 §4.8.2)",
                "Subject Key Identifier is not the SHA-1 of the key",
            ));
        }
        match eku {
            None => return Err(profile("§3.1.3.2", "no Extended Key Usage")),
            Some(false) => {
                return Err(profile(
                    "§3.1.3.2",
                    "Extended Key Usage lacks id-kp-bgpsec-router",
                ))
            }
            Some(true) => {}
        }
        let asns = asns.ok_or_else(|| profile("§3.1.3.5", "no AS Resources extension"))?;
        let validity = cert.validity();
        Ok(RouterCertificate {
            asns,
            ski: computed,
            spki,
            not_before: validity.not_before.timestamp(),
            not_after: validity.not_after.timestamp(),
        })
    }

    /// The AS numbers it names, ascending, each once.
    pub fn asns(&self) -> &[u32] {
        &self.asns
    }

    /// Its Subject Key Identifier.
    pub fn ski(&self) -> &Ski {
        &self.ski
    }

    /// Its DER SubjectPublicKeyInfo.
    pub fn spki(&self) -> &[u8] {
        &self.spki
    }

    /// notBefore and notAfter, in seconds since the Unix epoch.
    pub fn validity(&self) -> (i64, i64) {
        (self.not_before, self.not_after)
    }

    /// Whether it is valid at `unix` seconds (RFC 5280 §4.1.2.5: both ends included).
    pub fn valid_at(&self, unix: i64) -> bool {
        (self.not_before..=self.not_after).contains(&unix)
    }

    /// One (AS, SKI, key) triple per AS it names (RFC 8205 §5.1).
    pub fn router_keys(&self) -> impl Iterator<Item = RouterKey> + '_ {
        self.asns
            .iter()
            .map(|&asn| RouterKey::new(asn, self.ski, &self.spki))
    }
}

/// The `asnum` AS numbers of an ASIdentifiers extension value (RFC 3779 §3.2.3):
///
/// ```text
/// ASIdentifiers ::= SEQUENCE { asnum [0] EXPLICIT ASIdentifierChoice OPTIONAL,
///                              rdi   [1] EXPLICIT ASIdentifierChoice OPTIONAL }
/// ASIdentifierChoice ::= CHOICE { inherit NULL, asIdsOrRanges SEQUENCE OF ASIdOrRange }
/// ASIdOrRange ::= CHOICE { id ASId, range ASRange }
/// ASRange ::= SEQUENCE { min ASId, max ASId }     ASId ::= INTEGER
/// ```
fn as_identifiers(value: &[u8]) -> Result<Vec<u32>, CertificateError> {
    let bad = CertificateError::AsResources;
    let mut outer = Reader::new(value);
    let mut ids = Reader::new(der(&mut outer, 0x30, "ASIdentifiers").map_err(bad)?);
    outer.finish("AS Resources extension").map_err(bad)?;
    let asnum = der(&mut ids, 0xa0, "asnum").map_err(|_| {
        profile(
            "§3.1.3.5 (RFC 6487 §4.8.11)",
            "AS Resources without asnum, or with rdi",
        )
    })?;
    if ids.remaining() > 0 {
        return Err(profile(
            "§3.1.3.5 (RFC 6487 §4.8.11)",
            "AS Resources with rdi",
        ));
    }
    let mut choice = Reader::new(asnum);
    let (tag, list) = any(&mut choice, "ASIdentifierChoice").map_err(bad)?;
    choice.finish("asnum").map_err(bad)?;
    match tag {
        0x05 => return Err(profile("§3.1.3.5", "AS Resources say \"inherit\"")),
        0x30 => {}
        _ => {
            return Err(bad(DecodeError::Invalid {
                field: "ASIdentifierChoice",
                reason: "neither inherit nor asIdsOrRanges",
            }))
        }
    }
    let mut items = Reader::new(list);
    let mut asns = Vec::new();
    let mut count = 0u64;
    while items.remaining() > 0 {
        let (min, max) = match any(&mut items, "ASIdOrRange").map_err(bad)? {
            (0x02, id) => {
                let id = as_number(id, "ASId").map_err(bad)?;
                (id, id)
            }
            (0x30, range) => {
                let mut r = Reader::new(range);
                let min = as_number(der(&mut r, 0x02, "ASRange.min").map_err(bad)?, "min")
                    .map_err(bad)?;
                let max = as_number(der(&mut r, 0x02, "ASRange.max").map_err(bad)?, "max")
                    .map_err(bad)?;
                r.finish("ASRange").map_err(bad)?;
                if min > max {
                    return Err(bad(DecodeError::Invalid {
                        field: "ASRange",
                        reason: "min above max",
                    }));
                }
                (min, max)
            }
            _ => {
                return Err(bad(DecodeError::Invalid {
                    field: "ASIdOrRange",
                    reason: "neither an INTEGER nor an ASRange",
                }))
            }
        };
        // RFC 3779 §3.2.3.3: ascending, no overlap, adjacent ones combined.
        if asns
            .last()
            .is_some_and(|&last: &u32| u64::from(min) <= u64::from(last) + 1)
        {
            return Err(bad(DecodeError::Invalid {
                field: "asIdsOrRanges",
                reason: "not ascending, overlapping or adjacent (RFC 3779 §3.2.3.3)",
            }));
        }
        count += u64::from(max - min) + 1;
        if count > MAX_ASNS {
            return Err(profile(
                "§3.1.3.5",
                format!("names more than {MAX_ASNS} AS numbers"),
            ));
        }
        asns.extend(min..=max);
    }
    if asns.is_empty() {
        return Err(profile("§3.1.3.5", "AS Resources name no AS number"));
    }
    Ok(asns)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// The extension value `ASIdentifiers { asnum asIdsOrRanges { items } }`.
    fn asnum(items: &[u8]) -> Vec<u8> {
        let list = [&[0x30, items.len() as u8][..], items].concat();
        let choice = [&[0xa0, list.len() as u8][..], &list].concat();
        [&[0x30, choice.len() as u8][..], &choice].concat()
    }

    #[test]
    fn as_identifiers_must_be_in_rfc_3779_order() {
        // 5, 7..=9
        let good = asnum(&[
            0x02, 0x01, 0x05, 0x30, 0x06, 0x02, 0x01, 0x07, 0x02, 0x01, 0x09,
        ]);
        assert_eq!(as_identifiers(&good).unwrap(), [5, 7, 8, 9]);
        for bad in [
            &[0x02, 0x01, 0x07, 0x02, 0x01, 0x05][..], // descending
            &[0x02, 0x01, 0x05, 0x02, 0x01, 0x05],     // repeated
            &[0x02, 0x01, 0x05, 0x02, 0x01, 0x06],     // adjacent
            &[
                0x30, 0x06, 0x02, 0x01, 0x07, 0x02, 0x01, 0x09, 0x02, 0x01, 0x08,
            ], // overlap
            &[0x30, 0x06, 0x02, 0x01, 0x09, 0x02, 0x01, 0x07], // min > max
            &[0x04, 0x01, 0x05],                       // not an INTEGER
        ] {
            assert!(as_identifiers(&asnum(bad)).is_err(), "{bad:02x?}");
        }
        assert!(as_identifiers(&asnum(&[])).is_err(), "no AS at all");
        // "inherit", and the rdi element.
        assert!(as_identifiers(&[0x30, 0x04, 0xa0, 0x02, 0x05, 0x00]).is_err());
        let mut rdi = good.clone();
        rdi.extend_from_slice(&[0xa1, 0x05, 0x30, 0x03, 0x02, 0x01, 0x01]);
        rdi[1] += 7;
        assert!(as_identifiers(&rdi).is_err());
    }
}
