//! Router keys as rpki-client publishes them: the `bgpsec_keys` array of its JSON
//! output (`rpki-client -j`, json(5) "bgpsec_keys": one object per valid router
//! certificate with its `asn`, `ski` and `pubkey`). hopsig reads it into a
//! [`RouterKeys`] lookup and writes it for the keys it generates
//! (`hopsig bgpsec keygen`, `sign-mrt`'s keys folder; docs/spec/bgpsec-mrt.md, "Keys
//! folder").

use super::{ski_of_spki, LoadReport, RouterKey, Ski};

/// `keys` as rpki-client's JSON: an object whose `bgpsec_keys` lists them in order.
pub fn to_rpki_json(keys: &[RouterKey]) -> String {
    let entries: Vec<String> = keys
        .iter()
        .map(|k| {
            format!(
                "    {{ \"asn\": {}, \"ski\": \"{}\", \"pubkey\": \"{}\" }}",
                k.asn(),
                hex_upper(k.ski()),
                openssl::base64::encode_block(k.spki())
            )
        })
        .collect();
    format!(
        "{{\n  \"bgpsec_keys\": [\n{}\n  ]\n}}\n",
        entries.join(",\n")
    )
}

fn hex_upper(bytes: &[u8]) -> String {
    hopsig_primitives::codec::to_hex(bytes).to_ascii_uppercase()
}

/// Why a `bgpsec_keys` JSON document was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysJsonError {
    /// Not a JSON object with a `bgpsec_keys` array (serde_json's message).
    #[error("not an rpki-client JSON document with a \"bgpsec_keys\" array: {0}")]
    Document(String),
    /// Entry `index` of `bgpsec_keys`: `field` is wrong.
    #[error("bgpsec_keys[{index}].{field}: {problem}")]
    Entry {
        /// Index in the array, from 0.
        index: usize,
        /// The member at fault.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
}

/// Which member of a router key entry is at fault ([`checked_entry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMember {
    /// The SKI (`ski` in rpki-client's JSON, `SKI` in Routinator's).
    Ski,
    /// The key (`pubkey` in rpki-client's JSON, `routerPublicKey` in Routinator's).
    Key,
}

/// A router key entry's fault: the member and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryFault {
    /// The member.
    pub member: KeyMember,
    /// What is wrong.
    pub problem: String,
}

/// The checks every JSON list of router keys gets (rpki-client's `bgpsec_keys`,
/// Routinator's `routerKeys`, hopsig's `rpki::source`): `ski` is 40 hexadecimal digits
/// (either case), `spki` (`None`: it did not decode as the format's base64, whose
/// member is `key_name`) is a DER SubjectPublicKeyInfo, and its SKI is `ski` (RFC 8209
/// §3.1.1). Returns the SKI.
///
/// # Errors
/// [`EntryFault`] naming the member.
pub fn checked_entry(ski: &str, spki: Option<&[u8]>, key_name: &str) -> Result<Ski, EntryFault> {
    let fault = |member, problem: String| EntryFault { member, problem };
    let ski: Ski = hex::decode(ski)
        .ok()
        .and_then(|v| v.try_into().ok())
        .ok_or_else(|| fault(KeyMember::Ski, "not 40 hexadecimal digits".into()))?;
    let spki = spki.ok_or_else(|| fault(KeyMember::Key, "not base64".into()))?;
    let computed = ski_of_spki(spki).map_err(|e| fault(KeyMember::Key, e.to_string()))?;
    if computed != ski {
        return Err(fault(
            KeyMember::Ski,
            format!("is not the SKI of {key_name} (RFC 8209 §3.1.1)"),
        ));
    }
    Ok(ski)
}

/// The `bgpsec_keys` of an rpki-client JSON document as a validator's lookup: each
/// entry's `asn` (0 to 2³²−1), `ski` (40 hex digits, either case) and `pubkey` (base64
/// DER SubjectPublicKeyInfo, whose SKI must be `ski`). An entry whose `expires` (Unix
/// seconds, when its certificate or anything its validity rests on expires) is before
/// `unix` is counted in [`LoadReport::expired`] and left out; other members (`ta`) are
/// ignored.
///
/// # Errors
/// [`KeysJsonError`] naming the first bad entry and member.
pub fn from_rpki_json(text: &[u8], unix: i64) -> Result<LoadReport, KeysJsonError> {
    let doc: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| KeysJsonError::Document(e.to_string()))?;
    let entries = doc
        .get("bgpsec_keys")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| KeysJsonError::Document("no \"bgpsec_keys\" array".into()))?;
    let mut report = LoadReport {
        files: 1,
        ..LoadReport::default()
    };
    for (index, e) in entries.iter().enumerate() {
        let bad = |field, problem: &str| KeysJsonError::Entry {
            index,
            field,
            problem: problem.to_string(),
        };
        let asn = e
            .get("asn")
            .and_then(serde_json::Value::as_u64)
            .and_then(|a| u32::try_from(a).ok())
            .ok_or_else(|| bad("asn", "not an AS number from 0 to 4294967295"))?;
        let ski = e
            .get("ski")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        let spki = e
            .get("pubkey")
            .and_then(serde_json::Value::as_str)
            .and_then(|s| openssl::base64::decode_block(s).ok());
        let ski = checked_entry(ski, spki.as_deref(), "pubkey").map_err(|f| {
            let field = match f.member {
                KeyMember::Ski => "ski",
                KeyMember::Key => "pubkey",
            };
            bad(field, &f.problem)
        })?;
        let spki = spki.unwrap_or_default();
        let expires = match e.get("expires") {
            None => None,
            Some(v) => Some(
                v.as_i64()
                    .ok_or_else(|| bad("expires", "not a whole number of Unix seconds"))?,
            ),
        };
        report.certificates += 1;
        if expires.is_some_and(|t| t < unix) {
            report.expired += 1;
        } else {
            report.keys.insert(RouterKey::new(asn, ski, &spki));
        }
    }
    Ok(report)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::router_key::KeyLookup;

    /// An entry of rpki-client's own json(5) example output: a real router key of AS
    /// 15562 published in the RIPE RPKI.
    const REAL: &str = r#"{ "asn": 15562, "ski": "5D4250E2D81D4448D8A29EFCE91D29FF075EC9E2", "pubkey": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEgFcjQ/g//LAQerAH2Mpp+GucoDAGBbhIqD33wNPsXxnAGb+mtZ7XQrVO9DQ6UlAShtig5+QfEKpTtFgiqfiAFQ==", "ta": "ripe", "expires": 1668013479 }"#;

    fn doc(entries: &[serde_json::Value]) -> String {
        serde_json::json!({ "metadata": { "buildtime": "2022-11-01T00:00:00Z" }, "bgpsec_keys": entries })
            .to_string()
    }

    fn real() -> serde_json::Value {
        serde_json::from_str(REAL).unwrap()
    }

    #[test]
    fn rpki_clients_entries_load_until_they_expire() {
        let ski: Ski = hex::decode("5D4250E2D81D4448D8A29EFCE91D29FF075EC9E2")
            .unwrap()
            .try_into()
            .unwrap();
        let text = doc(&[real()]);
        let loaded = from_rpki_json(text.as_bytes(), 1_668_013_479).unwrap();
        assert_eq!((loaded.keys.len(), loaded.expired), (1, 0));
        let key = &loaded.keys.router_keys(15_562, &ski)[0];
        assert_eq!(
            key.suites().collect::<Vec<_>>(),
            [1],
            "a P-256 key: suite 1"
        );
        let later = from_rpki_json(text.as_bytes(), 1_668_013_480).unwrap();
        assert_eq!(
            (later.keys.len(), later.expired, later.certificates),
            (0, 1, 1)
        );
        // What hopsig writes reads back (it writes no `expires`: always kept).
        let again = to_rpki_json(std::slice::from_ref(key));
        assert!(again.contains("5D4250E2D81D4448D8A29EFCE91D29FF075EC9E2"));
        let back = from_rpki_json(again.as_bytes(), i64::MAX).unwrap();
        assert_eq!(back.keys.router_keys(15_562, &ski)[0].spki(), key.spki());
    }

    #[test]
    fn bad_json_names_the_entry_and_member() {
        let entry = real();
        let with = |field: &str, value: serde_json::Value| {
            let mut e = entry.clone();
            e[field] = value;
            doc(&[entry.clone(), e])
        };
        let other_ski = "00".repeat(20);
        for (field, value) in [
            ("asn", serde_json::json!(-1)),
            ("asn", serde_json::json!(4_294_967_296u64)),
            ("asn", serde_json::json!("AS15562")),
            ("ski", serde_json::json!("AB")),
            ("ski", serde_json::json!(other_ski)),
            ("pubkey", serde_json::json!("!!")),
            ("pubkey", serde_json::json!("AAAA")),
            ("expires", serde_json::json!("soon")),
        ] {
            let e = from_rpki_json(with(field, value).as_bytes(), 0).unwrap_err();
            let named = format!("bgpsec_keys[1].{field}");
            assert!(e.to_string().starts_with(&named), "{e}");
        }
        for text in ["", "[]", "{}", "{\"bgpsec_keys\": 3}"] {
            assert!(matches!(
                from_rpki_json(text.as_bytes(), 0),
                Err(KeysJsonError::Document(_))
            ));
        }
        // A lower-case SKI is the same SKI; base64 is case-sensitive.
        let mut e = entry.clone();
        e["ski"] = serde_json::json!(e["ski"].as_str().unwrap().to_ascii_lowercase());
        assert_eq!(
            from_rpki_json(doc(&[e]).as_bytes(), 0).unwrap().keys.len(),
            1
        );
        let lower = doc(&[entry]).replace("MFkw", "mfkw");
        assert!(from_rpki_json(lower.as_bytes(), 0).is_err());
    }
}
