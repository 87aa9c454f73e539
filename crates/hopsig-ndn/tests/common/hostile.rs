//! The hostile packets of issue 22 §1, for the tests that feed them to a face or to
//! a role (`tests/face.rs` here, `hopsig-cli/tests/ndn.rs` through ndnd): 17
//! malformed Interests (1) and Data (3) — 2 that ndnd forwards ([`through_ndnd`]),
//! 15 that only a peer on the face itself can send ([`on_the_face`], [`unframable`])
//! — and 2 well-formed ones over NDN's 8800 octets ([`oversize`]). Each names the
//! reason the face must drop it for (docs/spec/ndn-ibas.md §5.1).

#![allow(dead_code)]

use hopsig_ndn::tlv::{put_nested, put_tlv};
use hopsig_ndn::Name;

/// One hostile packet.
pub struct Hostile {
    /// What is wrong with it.
    pub what: &'static str,
    /// Its octets, as sent on the stream.
    pub wire: Vec<u8>,
    /// Why the face drops it: the name of its `hopsig_ndn::DropReason` (a string,
    /// so that the tests also build against a hopsig without that type).
    pub reason: &'static str,
}

fn tlv(typ: u32, value: &[u8]) -> Vec<u8> {
    let mut v = vec![];
    put_tlv(&mut v, typ, value);
    v
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// MetaInfo with FreshnessPeriod 10000, as 004's Data carry.
const META: &[u8] = &[0x14, 0x04, 0x19, 0x02, 0x27, 0x10];
/// SignatureInfo of SignatureSha256Ibas: SignatureType 201 in one octet.
const SIG_INFO: &[u8] = &[0x16, 0x03, 0x1b, 0x01, 0xc9];

fn content() -> Vec<u8> {
    tlv(21, b"From: x\nPublished: y\nhello")
}

fn sig_value() -> Vec<u8> {
    tlv(23, &[0; 160])
}

/// `data` as sent by a producer that answers an Interest which came with
/// `pit_token`: an NDNLPv2 LpPacket (100) of PitToken (98) and Fragment (80).
pub fn with_pit_token(data: &[u8], pit_token: &[u8]) -> Vec<u8> {
    let mut lp = vec![];
    put_nested(&mut lp, 100, |v| {
        put_tlv(v, 98, pit_token);
        put_tlv(v, 80, data);
    });
    lp
}

/// The two malformed Data (3) named `name` that ndnd forwards: SignatureType 201 in
/// two octets (`1B 02 00 C9`), and a Content TLV-LENGTH in three.
pub fn through_ndnd(name: &Name) -> Vec<Hostile> {
    let n = name.encoding();
    let text = b"From: x\nPublished: y\nhello";
    let mut long_len = vec![0x15, 0xfd, 0x00, text.len() as u8];
    long_len.extend_from_slice(text);
    vec![
        Hostile {
            what: "SignatureType 201 in 2 octets",
            wire: tlv(
                6,
                &cat(&[
                    &n,
                    META,
                    &content(),
                    &[0x16, 0x04, 0x1b, 0x02, 0x00, 0xc9],
                    &sig_value(),
                ]),
            ),
            reason: "non-canonical",
        },
        Hostile {
            what: "Content TLV-LENGTH in 3 octets",
            wire: tlv(6, &cat(&[&n, META, &long_len, SIG_INFO, &sig_value()])),
            reason: "non-canonical",
        },
    ]
}

/// The malformed packets a peer on the face can send: Data (3) named `data` and
/// Interests (1) named `interest`.
pub fn on_the_face(data: &Name, interest: &Name) -> Vec<Hostile> {
    let n = data.encoding();
    let i = interest.encoding();
    let nonce: &[u8] = &[0x0a, 0x04, 1, 2, 3, 4];
    let good_body = cat(&[&n, META, &content(), SIG_INFO, &sig_value()]);
    let mut long_outer = vec![0x06, 0xfd];
    long_outer.extend_from_slice(&(good_body.len() as u16).to_be_bytes());
    long_outer.extend_from_slice(&good_body);
    let d = |what, parts: &[&[u8]], reason| Hostile {
        what,
        wire: tlv(6, &cat(parts)),
        reason,
    };
    vec![
        d(
            "Name running past the Data",
            &[&[0x07, 0xf0], &data.value()],
            "truncated",
        ),
        d(
            "name component running past the Name",
            &[
                &[0x07, 0x05, 0x08, 0x09, 0x41, 0x42, 0x43],
                SIG_INFO,
                &sig_value(),
            ],
            "truncated",
        ),
        Hostile {
            what: "Data TLV-LENGTH in 3 octets (non-shortest VAR-NUMBER)",
            wire: long_outer,
            reason: "non-canonical",
        },
        d(
            "Content TLV-LENGTH in 9 octets (8-octet length of 5)",
            &[
                &n,
                META,
                &[0x15, 0xff, 0, 0, 0, 0, 0, 0, 0, 5],
                b"hello",
                SIG_INFO,
                &sig_value(),
            ],
            "non-canonical",
        ),
        d(
            "Content TLV-LENGTH 2^63",
            &[&n, META, &[0x15, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0], b"hello"],
            "truncated",
        ),
        d(
            "unknown critical TLV-TYPE 257",
            &[
                &n,
                META,
                &[0xfd, 0x01, 0x01, 0x00],
                &content(),
                SIG_INFO,
                &sig_value(),
            ],
            "critical-element",
        ),
        d(
            "truncated: SignatureValue of 160 octets with 10 left",
            &[&n, META, &content(), SIG_INFO, &[0x17, 0xa0], &[0; 10]],
            "truncated",
        ),
        d("empty Data", &[], "missing-element"),
        d(
            "TLV-TYPE 0",
            &[&n, &[0x00, 0x00], SIG_INFO, &sig_value()],
            "bad-type",
        ),
        Hostile {
            what: "Interest: ApplicationParameters without its digest component",
            wire: tlv(5, &cat(&[&i, nonce, &[0x24, 0x03, 1, 2, 3]])),
            reason: "invalid-value",
        },
        Hostile {
            what: "Interest: unknown critical TLV-TYPE 257",
            wire: tlv(5, &cat(&[&i, &[0xfd, 0x01, 0x01, 0x00], nonce])),
            reason: "critical-element",
        },
        Hostile {
            what: "Interest: Name of no component",
            wire: tlv(5, &cat(&[&[0x07, 0x00], nonce])),
            reason: "invalid-value",
        },
        Hostile {
            what: "empty Interest",
            wire: vec![0x05, 0x00],
            reason: "missing-element",
        },
        Hostile {
            what: "Interest: TLV-TYPE 0",
            wire: tlv(5, &cat(&[&i, &[0x00, 0x00], nonce])),
            reason: "bad-type",
        },
    ]
}

/// A Data TLV-LENGTH of 2^63: no frame can be that long, so the face loses the
/// stream's framing and reads on from the next octet that can start a packet.
/// Send it last in a burst, or on its own.
pub fn unframable() -> Hostile {
    Hostile {
        what: "Data TLV-LENGTH 2^63",
        wire: vec![0x06, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        reason: "unframable",
    }
}

/// Well-formed packets over NDN's 8800 octets: an Interest (1) named `interest`
/// with a 9000-octet non-critical element, and a Data (3) named `data` with 9000
/// octets of Content.
pub fn oversize(data: &Name, interest: &Name) -> Vec<Hostile> {
    let filler = vec![0x55; 9000];
    vec![
        Hostile {
            what: "Interest of 9000 octets",
            wire: tlv(
                5,
                &cat(&[
                    &interest.encoding(),
                    &[0x0a, 0x04, 9, 9, 9, 9],
                    &tlv(240, &filler),
                ]),
            ),
            reason: "oversize",
        },
        Hostile {
            what: "Data of 9000 octets",
            wire: tlv(
                6,
                &cat(&[
                    &data.encoding(),
                    META,
                    &tlv(21, &filler),
                    SIG_INFO,
                    &sig_value(),
                ]),
            ),
            reason: "oversize",
        },
    ]
}
