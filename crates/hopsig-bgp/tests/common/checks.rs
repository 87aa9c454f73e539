//! The checks every decoder input goes through, shared by the property tests, the
//! corpus test and the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs` include this file):
//! decoding never panics; an accepted input re-encodes to exactly its octets; an
//! UPDATE error carries a salvage exactly when it is not a session reset, and a
//! NOTIFICATION exactly when it is.

use hopsig_bgp::packet::{
    Action, AsWidth, BgpsecPath, Message, MessageError, Open, Update, UpdateError,
};
use hopsig_primitives::codec::Writer;

/// Both AS widths.
pub const WIDTHS: [AsWidth; 2] = [AsWidth::Two, AsWidth::Four];

fn verdict(e: &UpdateError) {
    assert_eq!(
        e.salvage().is_some(),
        e.action() != Action::SessionReset,
        "{e:?}"
    );
    assert_eq!(
        e.notification().is_some(),
        e.action() == Action::SessionReset,
        "{e:?}"
    );
}

/// A whole message.
pub fn message(data: &[u8], width: AsWidth) -> Result<Message<'_>, MessageError> {
    let decoded = Message::decode(data, width);
    match &decoded {
        Ok(m) => assert_eq!(
            m.encoding(width).unwrap(),
            data,
            "re-encoding differs: {m:?}"
        ),
        Err(MessageError::Update(e)) => verdict(e),
        Err(_) => {}
    }
    decoded
}

/// An UPDATE body.
pub fn update(data: &[u8], width: AsWidth) {
    match Update::decode(data, width) {
        Ok(u) => {
            let mut w = Writer::new();
            u.encode(&mut w, width).unwrap();
            assert_eq!(w.into_bytes(), data, "re-encoding differs: {u:?}");
        }
        Err(e) => verdict(&e),
    }
}

/// An OPEN body.
pub fn open(data: &[u8]) {
    if let Ok(o) = Open::decode(data) {
        let mut w = Writer::new();
        o.encode(&mut w).unwrap();
        assert_eq!(w.into_bytes(), data, "re-encoding differs: {o:?}");
    }
}

/// A BGPsec_PATH attribute value.
pub fn bgpsec_path(data: &[u8]) {
    if let Ok(p) = BgpsecPath::decode(data) {
        let mut w = Writer::new();
        p.encode(&mut w).unwrap();
        assert_eq!(w.into_bytes(), data, "re-encoding differs: {p:?}");
    }
}
