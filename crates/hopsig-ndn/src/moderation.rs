//! Moderator-controlled information sharing (004 §3–5, docs/spec/ndn-ibas.md): a
//! publisher (Alice) publishes a short message, a moderator (Government) verifies it,
//! adds its lines and republishes it under its own name, and a subscriber (Bob)
//! verifies both — with one IBAS aggregate (004's proposal) or with two RSA / ECDSA
//! signatures, the publisher's Data carried inside the moderator's Content (004 Fig. 5).
//!
//! Names (004 §5.1, Snippet 1), identities being two-component names:
//!
//! ```text
//! (1) Interest Bob → moderator:  /moderators/Government/safetyConfirmation/wonderland/Alice
//! (2) Interest moderator → Alice: /wonderland/Alice/safetyConfirmation
//! (3) Data Alice → moderator:    /wonderland/Alice/safetyConfirmation/2
//! (4) Data moderator → Bob:      /moderators/Government/safetyConfirmation/wonderland/Alice/2/9
//! ```
//!
//! Content (004 §5.2, Fig. 5): the publisher writes `From: ID\nPublished: TIME\n` then
//! the message; the moderator appends `\nModerator: ID\nAccepted: TIME`. With IBAS the
//! subscriber rebuilds m_1, the publisher's signed portion, from m_2 "in a formulated
//! manner" ([`publisher_view`]): name (3) from name (4), the same MetaInfo and
//! SignatureInfo, the Content without the moderator's suffix.

use std::collections::HashMap;

use hopsig_schemes::ibas::{self, IbasAggregate, Identity, Journal, PublicParams, UserKey, W_LEN};

use crate::data::{Data, MetaInfo};
use crate::face::MAX_NDN_PACKET;
use crate::ibas::IbasSigner;
use crate::name::{Component, Name};
use crate::sign::{DigestSha256, SignerMut, SigningKey, Verifier as _, VerifyingKey};
use crate::signature::SignatureInfo;
use crate::tlv::Reader;
use crate::types;

/// The application component (004 §5.1: "always the application name").
pub const APP: &[u8] = b"safetyConfirmation";

/// Why a packet was refused. Each says what a subscriber or moderator would log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModerationError {
    /// The name is not one of Snippet 1's shapes.
    #[error("name {0}: {1}")]
    Name(String, &'static str),
    /// The Content is not as §5.2 lays it out.
    #[error("content: {0}")]
    Content(String),
    /// The name and the content disagree (e.g. the moderator named in the content is
    /// not the one in the name).
    #[error("{0}")]
    Mismatch(String),
    /// No key for an identity.
    #[error("unknown identity {0}")]
    UnknownIdentity(String),
    /// A signature does not verify.
    #[error("signature of {0} does not verify")]
    BadSignature(String),
    /// A state string w of this publisher already signed another message: the
    /// publisher reused it, or (the moderator's journal) a Data (3) moderated before
    /// this run comes again.
    #[error("{0}: the IBAS state string w {1} already signed another message")]
    ReplayedW(String, String),
    /// Signing failed (a journal refusing a reused w, I/O).
    #[error("signing: {0}")]
    Sign(String),
    /// The packet is signed with another SignatureType than expected.
    #[error("SignatureType {0} where {1} was expected")]
    SignatureType(u64, u64),
    /// The Data built would exceed NDN's packet size limit (forwarders drop it).
    #[error("Data {0} would be {1} octets, over NDN's {max}", max = MAX_NDN_PACKET)]
    Oversize(String, usize),
    /// An IBAS Data whose SignatureInfo holds more than SignatureType 201 (§1).
    #[error(
        "SignatureInfo {0}: an IBAS Data's SignatureInfo is SignatureType 201 and nothing else"
    )]
    SignatureInfo(String),
    /// An IBAS SignatureValue that is not w ‖ S ‖ T with valid points: malformed
    /// input, not a signature that fails.
    #[error("{0}")]
    SignatureValue(String),
    /// An element of the Data that the other packet of the pair cannot carry (§4).
    #[error("{0}")]
    Element(String),
    /// The moderator's own check of the Data (4) it built failed: it is not sent.
    #[error("the Data (4) built does not verify, not sent: {0}")]
    Unverifiable(String),
    /// The subscriber's replay memory cannot be kept.
    #[error("replay memory: {0}")]
    State(String),
}

/// `d` if it is within NDN's packet size limit ([`MAX_NDN_PACKET`], which
/// forwarders enforce): a role refuses to send a Data the forwarder would drop
/// (docs/spec/ndn-ibas.md §5.1).
///
/// # Errors
/// [`ModerationError::Oversize`].
pub fn within_limit(d: Data) -> Result<Data, ModerationError> {
    match d.encode().len() {
        n if n > MAX_NDN_PACKET => Err(ModerationError::Oversize(d.name.to_string(), n)),
        _ => Ok(d),
    }
}

fn identity_of(name: &Name, at: usize) -> Result<Name, ModerationError> {
    let c = name
        .components()
        .get(at..at + 2)
        .ok_or(ModerationError::Name(name.to_string(), "too short"))?;
    if c.iter()
        .any(|c| u32::from(c.typ()) != types::GENERIC_COMPONENT)
    {
        return Err(ModerationError::Name(
            name.to_string(),
            "identity components must be generic",
        ));
    }
    Ok(Name(c.to_vec()))
}

fn seq_component(n: u64) -> Component {
    Component::generic(n.to_string().into_bytes())
}

fn seq_of(c: &Component, name: &Name) -> Result<u64, ModerationError> {
    std::str::from_utf8(c.value())
        .ok()
        .filter(|s| {
            !s.is_empty()
                && s.bytes().all(|b| b.is_ascii_digit())
                && (s.len() == 1 || !s.starts_with('0'))
        })
        .and_then(|s| s.parse().ok())
        .ok_or(ModerationError::Name(
            name.to_string(),
            "sequence number is not a decimal number",
        ))
}

/// (1) The subscriber's Interest name: moderator, application, publisher.
pub fn subscriber_interest(moderator: &Name, publisher: &Name) -> Name {
    let mut n = moderator.clone().child(Component::generic(APP));
    n.0.extend(publisher.0.iter().cloned());
    n
}

/// (2) The moderator's Interest name toward the publisher.
pub fn moderator_interest(publisher: &Name) -> Name {
    publisher.clone().child(Component::generic(APP))
}

/// (3) The publisher's Data name.
pub fn publisher_name(publisher: &Name, seq: u64) -> Name {
    moderator_interest(publisher).child(seq_component(seq))
}

/// (4) The moderator's Data name.
pub fn moderator_name(moderator: &Name, publisher: &Name, seq: u64, mseq: u64) -> Name {
    subscriber_interest(moderator, publisher)
        .child(seq_component(seq))
        .child(seq_component(mseq))
}

/// A name (4) taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moderated {
    /// The moderator's identity.
    pub moderator: Name,
    /// The publisher's identity.
    pub publisher: Name,
    /// The publisher's sequence number.
    pub seq: u64,
    /// The moderator's.
    pub mseq: u64,
}

impl Moderated {
    /// Parses name (4).
    ///
    /// # Errors
    /// Not 7 components, not the application, identities of non-generic components,
    /// one identity as both publisher and moderator, bad sequence numbers.
    pub fn parse(name: &Name) -> Result<Moderated, ModerationError> {
        let c = name.components();
        if c.len() != 7 || c[2].value() != APP || u32::from(c[2].typ()) != types::GENERIC_COMPONENT
        {
            return Err(ModerationError::Name(
                name.to_string(),
                "not /MODERATOR/safetyConfirmation/PUBLISHER/SEQ/MSEQ",
            ));
        }
        let (moderator, publisher) = (identity_of(name, 0)?, identity_of(name, 3)?);
        distinct(&moderator, &publisher)
            .map_err(|why| ModerationError::Name(name.to_string(), why))?;
        Ok(Moderated {
            moderator,
            publisher,
            seq: seq_of(&c[5], name)?,
            mseq: seq_of(&c[6], name)?,
        })
    }
}

/// A moderator may not moderate itself: an aggregate names each identity once
/// (docs/spec/ibas.md "Verification"), and the moderator would sign two messages under
/// the w its own key drew as publisher, the precondition of a forgery (004 §2.3).
fn distinct(moderator: &Name, publisher: &Name) -> Result<(), &'static str> {
    if moderator == publisher {
        return Err("the publisher is the moderator itself (an identity signs an aggregate once)");
    }
    Ok(())
}

/// The publisher's Content: `From: ID\nPublished: TIME\n` and the message.
pub fn publisher_content(publisher: &Name, published: &str, message: &[u8]) -> Vec<u8> {
    let mut c = format!("From: {publisher}\nPublished: {published}\n").into_bytes();
    c.extend_from_slice(message);
    c
}

/// The moderator's suffix: `\nModerator: ID\nAccepted: TIME`.
pub fn moderator_suffix(moderator: &Name, accepted: &str) -> Vec<u8> {
    format!("\nModerator: {moderator}\nAccepted: {accepted}").into_bytes()
}

/// A publisher's Content taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// The `From:` identity.
    pub from: String,
    /// The `Published:` time.
    pub published: String,
    /// The message.
    pub message: Vec<u8>,
}

fn line<'a>(rest: &mut &'a [u8], key: &str) -> Result<&'a str, ModerationError> {
    let end = rest
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| ModerationError::Content(format!("no '{key}' line")))?;
    let text = std::str::from_utf8(&rest[..end])
        .map_err(|_| ModerationError::Content(format!("'{key}' line is not UTF-8")))?;
    let value = text
        .strip_prefix(key)
        .ok_or_else(|| ModerationError::Content(format!("expected '{key}', found '{text}'")))?;
    *rest = &rest[end + 1..];
    Ok(value)
}

/// A TIME of the content lines: an RFC 3339 `date-time` (§5.6), any offset (§4).
fn time<'a>(text: &'a str, key: &str) -> Result<&'a str, ModerationError> {
    use time::format_description::well_known::Rfc3339;
    time::OffsetDateTime::parse(text, &Rfc3339)
        .map(|_| text)
        .map_err(|e| {
            ModerationError::Content(format!("{key} {text:?} is not an RFC 3339 date-time: {e}"))
        })
}

/// Parses a publisher's Content: the `From:` and `Published:` lines, in that order,
/// each UTF-8, TIME an RFC 3339 date-time; the message is any octets.
///
/// # Errors
/// Missing or misplaced lines, a TIME that is not RFC 3339.
pub fn parse_publisher_content(content: &[u8]) -> Result<Published, ModerationError> {
    let mut rest = content;
    let from = line(&mut rest, "From: ")?.to_string();
    let published = time(line(&mut rest, "Published: ")?, "Published")?.to_string();
    Ok(Published {
        from,
        published,
        message: rest.to_vec(),
    })
}

/// Splits the moderator's suffix off a Content: (what precedes it, moderator ID,
/// accepted time). The suffix is the last `\nModerator: ` and what follows: two lines
/// without further newlines.
///
/// # Errors
/// No suffix, one not of that shape, or a TIME that is not RFC 3339.
pub fn split_moderator_suffix(content: &[u8]) -> Result<(&[u8], String, String), ModerationError> {
    const KEY: &[u8] = b"\nModerator: ";
    let at = content
        .windows(KEY.len())
        .rposition(|w| w == KEY)
        .ok_or_else(|| ModerationError::Content("no moderator lines".into()))?;
    let tail = std::str::from_utf8(&content[at + KEY.len()..])
        .map_err(|_| ModerationError::Content("moderator lines are not UTF-8".into()))?;
    let (moderator, accepted) = tail
        .split_once("\nAccepted: ")
        .filter(|(m, a)| !m.contains('\n') && !a.contains('\n'))
        .ok_or_else(|| {
            ModerationError::Content(
                "moderator lines are not 'Moderator: ID' and 'Accepted: TIME'".into(),
            )
        })?;
    let accepted = time(accepted, "Accepted")?;
    Ok((&content[..at], moderator.to_string(), accepted.to_string()))
}

/// How packets are signed.
pub enum Signer<'a> {
    /// IBAS: the signer's key and its journal of state strings.
    Ibas(&'a UserKey, &'a mut Journal),
    /// RSA or ECDSA.
    Classic(&'a SigningKey),
}

/// How packets are verified.
pub enum Verifier<'a> {
    /// IBAS: the PKG's public parameters (identities come from the names).
    Ibas(&'a PublicParams),
    /// RSA or ECDSA: the public key of each identity.
    Classic(&'a HashMap<Name, VerifyingKey>),
}

fn meta() -> MetaInfo {
    MetaInfo {
        freshness_period: Some(10_000),
        ..MetaInfo::default()
    }
}

fn sign_err(e: impl std::fmt::Display) -> ModerationError {
    ModerationError::Sign(e.to_string())
}

/// (3) The publisher's Data: its Content, FreshnessPeriod 10 s, signed by IBAS
/// (first signer: a fresh w) or by its RSA / ECDSA key (KeyLocator `ID/KEY`).
///
/// # Errors
/// Signing failing.
pub fn publish(
    publisher: &Name,
    seq: u64,
    published: &str,
    message: &[u8],
    signer: Signer<'_>,
) -> Result<Data, ModerationError> {
    let content = publisher_content(publisher, published, message);
    let info = match &signer {
        Signer::Ibas(..) => crate::ibas::signature_info(),
        Signer::Classic(_) => SignatureInfo::new(0).with_key_name(key_name(publisher)),
    };
    let mut d = Data::new(publisher_name(publisher, seq), content, info);
    d.meta_info = Some(meta());
    match signer {
        Signer::Ibas(key, journal) => IbasSigner::new(key, journal)
            .sign_data(&mut d)
            .map_err(sign_err)?,
        Signer::Classic(key) => key.sign_data(&mut d).map_err(sign_err)?,
    }
    within_limit(d)
}

/// The KeyLocator name of an identity's RSA / ECDSA key.
pub fn key_name(identity: &Name) -> Name {
    identity.clone().child(Component::generic(b"KEY".to_vec()))
}

fn classic_key<'k>(
    keys: &'k HashMap<Name, VerifyingKey>,
    id: &Name,
) -> Result<&'k VerifyingKey, ModerationError> {
    keys.get(id)
        .ok_or_else(|| ModerationError::UnknownIdentity(id.to_string()))
}

fn check_publisher(d: &Data) -> Result<(Name, u64, Published), ModerationError> {
    let c = d.name.components();
    if c.len() != 4 || c[2].value() != APP {
        return Err(ModerationError::Name(
            d.name.to_string(),
            "not /PUBLISHER/safetyConfirmation/SEQ",
        ));
    }
    let publisher = identity_of(&d.name, 0)?;
    let seq = seq_of(&c[3], &d.name)?;
    let p = parse_publisher_content(d.content.as_deref().unwrap_or_default())?;
    if p.from != publisher.to_string() {
        return Err(ModerationError::Mismatch(format!(
            "content is From {} but the name is {publisher}'s",
            p.from
        )));
    }
    Ok((publisher, seq, p))
}

/// Verifies the publisher's Data (3): its name, its content's `From:`, and its
/// signature (a one-signer IBAS aggregate, or the publisher's RSA / ECDSA key). With
/// IBAS the Data must also be one the moderator can carry into m_1 of its (4): the
/// SignatureInfo of §1 exactly, and no element in the signed portion but Name,
/// MetaInfo, Content and SignatureInfo (§4).
///
/// # Errors
/// Any of these failing.
pub fn verify_publisher(d: &Data, verifier: &Verifier<'_>) -> Result<Published, ModerationError> {
    let (publisher, _, p) = check_publisher(d)?;
    match verifier {
        Verifier::Ibas(params) => {
            let agg = ibas_parts(d, 1)?;
            if let Some((_, e)) = d.extras.iter().find(|(after, _)| *after < Some(4)) {
                return Err(ModerationError::Element(format!(
                    "{}: element of TLV-TYPE {} in the signed portion, which m_1 rebuilt from the moderator's Data cannot hold",
                    d.name, e.typ
                )));
            }
            let id = Identity::new(&publisher.to_string())
                .map_err(|_| ModerationError::UnknownIdentity(publisher.to_string()))?;
            // The aggregate ibas_parts decoded (its points checked once), rather than
            // IbasVerifier, which would decode the SignatureValue again.
            ibas::verify(params, &[(&id, &d.signed_portion())], &agg)
                .map_err(|_| ModerationError::BadSignature(publisher.to_string()))?;
        }
        Verifier::Classic(keys) => classic_key(keys, &publisher)?
            .verify_data(d)
            .map_err(|_| ModerationError::BadSignature(publisher.to_string()))?,
    }
    Ok(p)
}

fn expect_type(d: &Data, t: u64) -> Result<(), ModerationError> {
    match d.signature_info.signature_type {
        x if x == t => Ok(()),
        x => Err(ModerationError::SignatureType(x, t)),
    }
}

/// The IBAS signature of a Data (3) or (4): the SignatureInfo of §1 exactly (a
/// KeyLocator or any other element would make m_1 differ between the two packets),
/// and the aggregate of `signers` in the SignatureValue, its points checked.
fn ibas_parts(d: &Data, signers: usize) -> Result<IbasAggregate, ModerationError> {
    expect_type(d, crate::ibas::SIGNATURE_TYPE)?;
    if d.signature_info != crate::ibas::signature_info() {
        let mut info = vec![];
        d.signature_info.encode(types::SIGNATURE_INFO, &mut info);
        return Err(ModerationError::SignatureInfo(hex::encode(info)));
    }
    crate::ibas::aggregate(&d.signature_value, signers)
        .map_err(|e| ModerationError::SignatureValue(format!("{}: {e}", d.name)))
}

/// (4) The moderator's Data from the publisher's (3), which is verified first (the
/// moderator never relays what it could not verify): renamed, the moderator's lines
/// appended, and with IBAS signed-and-aggregated under the publisher's w (m_2 is the
/// new signed portion); with RSA / ECDSA the publisher's whole Data is the start of
/// the Content and the moderator signs the new packet. The Data built is then
/// checked as a subscriber would check it (decoded from its encoding, every check of
/// [`receive`] but the replay memory, the moderator's own key included) and is
/// returned only if it passes: whatever slipped past the checks of (3), the moderator
/// never sends a (4) that does not verify (004 §5, docs/spec/ndn-ibas.md §5).
///
/// # Errors
/// The publisher's Data not verifying, the publisher being the moderator itself,
/// signing failing (the journal refuses a w the moderator already countersigned for
/// another message: a replayed w), the Data built not verifying
/// ([`ModerationError::Unverifiable`]).
pub fn moderate(
    published: &Data,
    moderator: &Name,
    mseq: u64,
    accepted: &str,
    verifier: &Verifier<'_>,
    signer: Signer<'_>,
) -> Result<Data, ModerationError> {
    verify_publisher(published, verifier)?;
    let (publisher, seq, _) = check_publisher(published)?;
    distinct(moderator, &publisher)
        .map_err(|why| ModerationError::Mismatch(format!("{}: {why}", published.name)))?;
    if let Signer::Ibas(key, _) = &signer {
        if key.identity() != moderator.to_string() {
            return Err(ModerationError::Mismatch(format!(
                "the IBAS key is {}'s, not the moderator {moderator}'s",
                key.identity()
            )));
        }
    }
    let name = moderator_name(moderator, &publisher, seq, mseq);
    let suffix = moderator_suffix(moderator, accepted);
    let (four, own) = match signer {
        Signer::Ibas(key, journal) => {
            let mut content = published.content.clone().unwrap_or_default();
            content.extend_from_slice(&suffix);
            let mut d = Data::new(name, content, crate::ibas::signature_info());
            d.meta_info = published.meta_info.clone();
            let first = crate::ibas::aggregate(&published.signature_value, 1).map_err(sign_err)?;
            let agg = IbasSigner::countersign(key, journal, first)
                .sign_aggregate(&d.signed_portion())
                .map_err(|e| match e {
                    hopsig_schemes::Error::State(hopsig_schemes::StateError::ReusedW { w }) => {
                        ModerationError::ReplayedW(publisher.to_string(), hex::encode(w))
                    }
                    other => sign_err(other),
                })?;
            d.signature_value = crate::ibas::value(&agg);
            (d, None)
        }
        Signer::Classic(key) => {
            let mut content = published.encode();
            content.extend_from_slice(&suffix);
            let mut d = Data::new(
                name,
                content,
                SignatureInfo::new(0).with_key_name(key_name(moderator)),
            );
            d.meta_info = Some(meta());
            key.sign_data(&mut d).map_err(sign_err)?;
            (d, Some(key.verifying_key().map_err(sign_err)?))
        }
    };
    let unverifiable = |e: &dyn std::fmt::Display| ModerationError::Unverifiable(e.to_string());
    let sent = Data::decode(&four.encode()).map_err(|e| unverifiable(&e))?;
    check_moderated(&sent, verifier, own.as_ref()).map_err(|e| unverifiable(&e))?;
    Ok(four)
}

/// m_1 rebuilt from the moderator's Data (004 §5.2): the publisher's Data as it was
/// signed — name (3) from name (4), the same MetaInfo, the Content without the
/// moderator's suffix, the same (IBAS) SignatureInfo; its SignatureValue is empty.
/// Elements of (4) other than these are not in m_1 (§4).
///
/// # Errors
/// A name (4) or Content that does not have that shape.
pub fn publisher_view(d: &Data) -> Result<Data, ModerationError> {
    let m = Moderated::parse(&d.name)?;
    let (before, _, _) = split_moderator_suffix(d.content.as_deref().unwrap_or_default())?;
    let mut p = Data::new(
        publisher_name(&m.publisher, m.seq),
        before.to_vec(),
        d.signature_info.clone(),
    );
    p.meta_info = d.meta_info.clone();
    Ok(p)
}

/// What a subscriber accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The name (4), parsed.
    pub names: Moderated,
    /// The publisher's lines and message.
    pub published: Published,
    /// The `Accepted:` time.
    pub accepted: String,
}

pub use crate::seen::SeenW;

/// The subscriber's check of the moderator's Data (4): the name, the content lines
/// against the name (the moderator in the content is the one in the name, the
/// publisher likewise), and the signatures — the IBAS aggregate of the two signers on
/// m_1 (rebuilt) and m_2, or the publisher's Data inside the Content and the
/// moderator's signature on the whole. With IBAS the publisher's w is then noted in
/// `seen` with m_1, and refused if another m_1 was noted under it (§5).
///
/// # Errors
/// The first check that fails, as a [`ModerationError`]; [`ModerationError::State`] if `seen` is a
/// file that cannot be kept.
pub fn receive(
    d: &Data,
    verifier: &Verifier<'_>,
    seen: &mut SeenW,
) -> Result<Received, ModerationError> {
    let (got, w) = check_moderated(d, verifier, None)?;
    if let Some((w, m1)) = w {
        seen.note(&got.names.publisher, &w, &m1)
            .map_err(|e| match e {
                crate::seen::SeenError::Replayed(w) => {
                    ModerationError::ReplayedW(got.names.publisher.to_string(), hex::encode(w))
                }
                other => ModerationError::State(other.to_string()),
            })?;
    }
    Ok(got)
}

/// A Data (4) with IBAS: the publisher's w and m_1, for the replay memory.
type Noted = Option<([u8; W_LEN], Vec<u8>)>;

/// Every check of [`receive`] but the replay memory. `own`, for a moderator checking
/// the Data it built, is its RSA / ECDSA key (which it need not trust as a verifier).
fn check_moderated(
    d: &Data,
    verifier: &Verifier<'_>,
    own: Option<&VerifyingKey>,
) -> Result<(Received, Noted), ModerationError> {
    let names = Moderated::parse(&d.name)?;
    let content = d.content.as_deref().unwrap_or_default();
    let (before, moderator, accepted) = split_moderator_suffix(content)?;
    if moderator != names.moderator.to_string() {
        return Err(ModerationError::Mismatch(format!(
            "content names moderator {moderator}, the name {}",
            names.moderator
        )));
    }
    let (published, noted) = match verifier {
        Verifier::Ibas(params) => {
            let agg = ibas_parts(d, 2)?;
            let m1 = publisher_view(d)?;
            let (_, _, published) = check_publisher(&m1)?;
            let id = |n: &Name| {
                Identity::new(&n.to_string())
                    .map_err(|_| ModerationError::UnknownIdentity(n.to_string()))
            };
            let (pid, mid) = (id(&names.publisher)?, id(&names.moderator)?);
            let (m1, m2) = (m1.signed_portion(), d.signed_portion());
            let signers = [(&pid, &m1[..]), (&mid, &m2[..])];
            ibas::verify(params, &signers, &agg).map_err(|_| {
                ModerationError::BadSignature(format!(
                    "{} and {} (IBAS aggregate)",
                    names.publisher, names.moderator
                ))
            })?;
            (published, Some((*agg.w(), m1)))
        }
        Verifier::Classic(keys) => {
            let mut r = Reader::new(before);
            let inner = r
                .tlv("publisher Data")
                .map_err(|e| ModerationError::Content(e.to_string()))?;
            if !r.is_empty() {
                return Err(ModerationError::Content(
                    "octets between the publisher's Data and the moderator's lines".into(),
                ));
            }
            let inner =
                Data::decode(inner.whole).map_err(|e| ModerationError::Content(e.to_string()))?;
            let published = verify_publisher(&inner, verifier)?;
            let (publisher, seq, _) = check_publisher(&inner)?;
            if publisher != names.publisher || seq != names.seq {
                return Err(ModerationError::Mismatch(format!(
                    "carried Data {} does not match the name {}",
                    inner.name, d.name
                )));
            }
            match own {
                Some(k) => k,
                None => classic_key(keys, &names.moderator)?,
            }
            .verify_data(d)
            .map_err(|_| ModerationError::BadSignature(names.moderator.to_string()))?;
            (published, None)
        }
    };
    let got = Received {
        names,
        published,
        accepted,
    };
    Ok((got, noted))
}

/// The Data (4) a moderator made in this run, by the Data (3) they came from, so that
/// a (3) that comes again (the publisher answering a later Interest (2) with the same
/// packet) gets the same (4) again: building another would sign another m_2 under the
/// same w, which the journal refuses (§5). The oldest are forgotten past
/// [`Made::CAPACITY`].
#[derive(Debug, Default)]
pub struct Made {
    by_three: HashMap<[u8; 32], Data>,
    order: std::collections::VecDeque<[u8; 32]>,
}

impl Made {
    /// How many (4) are remembered.
    pub const CAPACITY: usize = 1024;

    /// The (4) made from `three` before, else what `make` makes of it (remembered if
    /// it succeeds). `three` is known by the SHA-256 of its encoding, signature
    /// included.
    ///
    /// # Errors
    /// What `make` returns.
    pub fn get_or_make(
        &mut self,
        three: &Data,
        make: impl FnOnce(&Data) -> Result<Data, ModerationError>,
    ) -> Result<Data, ModerationError> {
        use sha2::Digest;
        let key: [u8; 32] = sha2::Sha256::digest(three.encode()).into();
        if let Some(four) = self.by_three.get(&key) {
            return Ok(four.clone());
        }
        let four = make(three)?;
        if self.order.len() >= Self::CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.by_three.remove(&old);
            }
        }
        self.order.push_back(key);
        self.by_three.insert(key, four.clone());
        Ok(four)
    }
}

/// The PKG's public parameters as a Data packet: `/PKG-PREFIX/params` holding the
/// 96-octet compressed Q (ContentType KEY), DigestSha256-signed (integrity only: a
/// subscriber must get the PKG's parameters from a source it trusts).
///
/// # Errors
/// Never in practice (DigestSha256 needs no key).
pub fn params_data(prefix: &Name, params: &PublicParams) -> Result<Data, ModerationError> {
    let mut d = Data::new(
        prefix.clone().child(Component::generic(b"params".to_vec())),
        params.to_bytes().to_vec(),
        SignatureInfo::new(0),
    );
    d.meta_info = Some(MetaInfo {
        content_type: Some(crate::data::content_type::KEY),
        ..MetaInfo::default()
    });
    DigestSha256.sign_data(&mut d).map_err(sign_err)?;
    Ok(d)
}

/// The parameters in a [`params_data`] packet.
///
/// # Errors
/// A bad digest, a Content that is not 96 octets, or not a valid G2 point.
pub fn params_from_data(d: &Data) -> Result<PublicParams, ModerationError> {
    DigestSha256
        .verify_data(d)
        .map_err(|e| ModerationError::BadSignature(e.to_string()))?;
    let bytes: &[u8; 96] = d
        .content
        .as_deref()
        .unwrap_or_default()
        .try_into()
        .map_err(|_| ModerationError::Content("PKG parameters are not 96 octets".into()))?;
    PublicParams::from_bytes(bytes).map_err(|e| ModerationError::Content(e.to_string()))
}

/// What [`serve_moderator`] did with one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModeratorEvent {
    /// Data (4) sent, answering this many Interests (1).
    Answered(Name, usize),
    /// The publisher's Data (3) did not verify, or signing failed: nothing relayed.
    Refused(Name, String),
    /// No Data (3) (a Nack or no answer in 4 s): the waiting Interests are dropped.
    NoAnswer(Name, String),
    /// An Interest under the prefix that is not `M/safetyConfirmation/PUBLISHER`
    /// (the publisher of two GenericNameComponents), and why.
    Ignored(Name, String),
}

/// Serves as moderator `moderator` on `face` until `count` Interests (1) were answered
/// (for ever with `None`), with several requests in flight: an Interest (1) sends its
/// Interest (2) at once (Interests for a publisher already asked wait for the same
/// Data); a Data (3) that arrives is handed to `moderate` (which verifies it and
/// builds (4), [`moderate`]) and the result answers every Interest waiting for it.
/// `event` hears each outcome. A Data (4) over NDN's size limit is refused
/// ([`within_limit`]); packets the face cannot decode are dropped and counted by the
/// face ([`crate::face::Face::drops`]), and serving goes on.
///
/// # Errors
/// The face closing ([`crate::face::FaceError::Closed`]) or failing; registration
/// is the caller's ([`crate::face::Face::produce`]).
pub fn serve_moderator(
    face: &mut crate::face::Face,
    moderator: &Name,
    count: Option<u64>,
    mut moderate: impl FnMut(&Data) -> Result<Data, ModerationError>,
    mut event: impl FnMut(ModeratorEvent),
) -> Result<u64, crate::face::FaceError> {
    use crate::face::Packet;
    use crate::interest::Interest;
    use std::time::{Duration, Instant};

    const LIFETIME: Duration = Duration::from_secs(4);
    let prefix = moderator.clone().child(Component::generic(APP));
    // Publisher → (when its Interest (2) left, the PitTokens of the Interests (1)).
    type Waiting = (Instant, Vec<Option<Vec<u8>>>);
    let mut waiting: HashMap<Name, Waiting> = HashMap::new();
    let mut served = 0u64;
    while count.is_none_or(|c| served < c) {
        let now = Instant::now();
        waiting.retain(|publisher, (sent, _)| {
            let alive = now.duration_since(*sent) < LIFETIME;
            if !alive {
                event(ModeratorEvent::NoAnswer(
                    publisher.clone(),
                    "no Data within 4 s".into(),
                ));
            }
            alive
        });
        let Some(packet) = face.recv_until(now + Duration::from_millis(500))? else {
            continue;
        };
        match packet {
            Packet::Interest(i, token) if prefix.is_prefix_of(&i.name) => {
                // The publisher's identity goes into names (2) and (4): two
                // GenericNameComponents, as §2 requires of identities.
                // Never itself: its own (3) would put one identity twice in the
                // aggregate (§1), and its Interest (2) would reach its own prefix.
                let publisher = if i.name.len() == 5 {
                    identity_of(&i.name, 3).and_then(|p| {
                        distinct(moderator, &p)
                            .map(|()| p)
                            .map_err(|why| ModerationError::Name(i.name.to_string(), why))
                    })
                } else {
                    Err(ModerationError::Name(
                        i.name.to_string(),
                        "not /MODERATOR/safetyConfirmation/PUBLISHER",
                    ))
                };
                let publisher = match publisher {
                    Ok(p) => p,
                    Err(e) => {
                        event(ModeratorEvent::Ignored(i.name, e.to_string()));
                        continue;
                    }
                };
                if let Some((_, tokens)) = waiting.get_mut(&publisher) {
                    tokens.push(token);
                    continue;
                }
                let mut two = Interest::new(moderator_interest(&publisher));
                two.can_be_prefix = true;
                two.must_be_fresh = true;
                two.lifetime = Some(LIFETIME.as_millis() as u64);
                let mut nonce = [0u8; 4];
                let _ = openssl::rand::rand_bytes(&mut nonce);
                two.nonce = Some(nonce);
                face.send(&two.encode())?;
                waiting.insert(publisher, (Instant::now(), vec![token]));
            }
            Packet::Data(three) => {
                let Ok(publisher) = identity_of(&three.name, 0) else {
                    continue;
                };
                let Some((_, tokens)) = waiting.remove(&publisher) else {
                    continue;
                };
                match moderate(&three).and_then(within_limit) {
                    Ok(four) => {
                        for token in &tokens {
                            face.put(&four, token.as_deref())?;
                        }
                        served += tokens.len() as u64;
                        event(ModeratorEvent::Answered(four.name.clone(), tokens.len()));
                    }
                    Err(e) => event(ModeratorEvent::Refused(three.name.clone(), e.to_string())),
                }
            }
            Packet::Nack(i, reason) => {
                if let Ok(publisher) = identity_of(&i.name, 0) {
                    if waiting.remove(&publisher).is_some() {
                        event(ModeratorEvent::NoAnswer(
                            publisher,
                            format!("Nack, reason {reason}"),
                        ));
                    }
                }
            }
            Packet::Interest(..) => {}
        }
    }
    Ok(served)
}

/// The current time as the content lines write it (docs/spec/ndn-ibas.md §4): RFC 3339,
/// UTC, whole seconds (`2026-11-26T19:00:00Z`).
pub fn now() -> String {
    let t = time::OffsetDateTime::now_utc();
    let t = t.replace_nanosecond(0).unwrap_or(t);
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
