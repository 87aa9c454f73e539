//! The speaker's operational log events (docs/spec/speaker.md "Logs"): each is a
//! `tracing` event with a field `event` naming its kind and structured fields beside
//! its human message, so that a JSON log (`hopsig --log-format json`) can be read by
//! machines and the text log by people. The events that are one call each stay where
//! they happen (the RIB's `validation_state`, `withdrawn_not_valid`; RTR's
//! `rtr_sync`); this module holds those logged from several places, and the names of
//! NOTIFICATION codes. Their `target` is the module an operator filters on
//! (`hopsig_bgp::speaker::session`, `…::rib`, `…::reload`), not this one.

use std::fmt::Display;

use super::fsm::State;
use super::outbox::SEND_HOLD_TIMER_EXPIRED;
use super::rib::RouteState;
use crate::packet::iana::{
    CeaseSubcode, ErrorCode, FsmSubcode, HeaderSubcode, OpenSubcode, UpdateSubcode,
};
use crate::packet::Notification;

/// `session_state`: the session with `neighbor` went from `from` to `to` (RFC 4271
/// §8.2.2), and why when it went to Idle.
pub(crate) fn session_state(
    neighbor: &dyn Display,
    remote_as: u32,
    from: State,
    to: State,
    reason: Option<&str>,
) {
    let (from, to) = (from.name(), to.name());
    match reason {
        Some(reason) => tracing::info!(
            target: "hopsig_bgp::speaker::session",
            event = "session_state",
            neighbor = %neighbor,
            remote_as,
            from,
            to,
            reason,
            "hopsig speaker: neighbor {neighbor} AS{remote_as}: {from} -> {to}"
        ),
        None => tracing::info!(
            target: "hopsig_bgp::speaker::session",
            event = "session_state",
            neighbor = %neighbor,
            remote_as,
            from,
            to,
            "hopsig speaker: neighbor {neighbor} AS{remote_as}: {from} -> {to}"
        ),
    }
}

/// `notification_sent`: a NOTIFICATION to `neighbor` (RFC 4271 §4.5), and why.
pub(crate) fn notification_sent(neighbor: &dyn Display, n: &Notification<'_>, reason: &str) {
    let (code_name, subcode_name) = (code_name(n.code), subcode_name(n.code, n.subcode));
    tracing::info!(
        target: "hopsig_bgp::speaker::session",
        event = "notification_sent",
        neighbor = %neighbor,
        code = n.code,
        subcode = n.subcode,
        code_name,
        subcode_name,
        reason,
        "hopsig speaker: neighbor {neighbor}: NOTIFICATION sent: {code_name} / {subcode_name} (code {} subcode {})",
        n.code,
        n.subcode
    );
}

/// `notification_received`: a NOTIFICATION from `neighbor` (RFC 4271 §6.4: the
/// session closes).
pub(crate) fn notification_received(neighbor: &dyn Display, n: &Notification<'_>) {
    let (code_name, subcode_name) = (code_name(n.code), subcode_name(n.code, n.subcode));
    tracing::info!(
        target: "hopsig_bgp::speaker::session",
        event = "notification_received",
        neighbor = %neighbor,
        code = n.code,
        subcode = n.subcode,
        code_name,
        subcode_name,
        data_len = n.data.len(),
        "hopsig speaker: neighbor {neighbor}: NOTIFICATION received: {code_name} / {subcode_name} (code {} subcode {})",
        n.code,
        n.subcode
    );
}

/// `config_reload`: the outcome of a configuration reload (docs/spec/speaker.md
/// "Reload" and "Logs"), logged by [`super::running`].
#[derive(Debug, Clone, Copy)]
pub struct ConfigReload<'a> {
    /// The reload's number since the speaker started.
    pub generation: u64,
    /// What asked for it: `signal` (SIGHUP) or `request` (`hopsig speaker reload`).
    pub trigger: &'a str,
    /// `None`: the new configuration is in force; `Some(why)`: it was refused and the
    /// running one stays.
    pub refused: Option<&'a str>,
    /// Neighbours added, by address.
    pub added: &'a [String],
    /// Neighbours removed.
    pub removed: &'a [String],
    /// Neighbours whose configuration changed.
    pub changed: &'a [String],
    /// Neighbours whose session the change reset.
    pub reset: &'a [String],
    /// The RPKI sources were read again.
    pub rpki: bool,
    /// The prefixes originated changed.
    pub originate: bool,
    /// The change in words, for the message.
    pub summary: &'a str,
}

impl ConfigReload<'_> {
    /// Logs the event: INFO when applied, WARN when refused. Address lists are
    /// comma-separated, as `withdrawn_from` is.
    pub fn log(&self) {
        let (added, removed, changed, reset) = (
            self.added.join(","),
            self.removed.join(","),
            self.changed.join(","),
            self.reset.join(","),
        );
        let (generation, trigger, rpki, originate) =
            (self.generation, self.trigger, self.rpki, self.originate);
        match self.refused {
            None => tracing::info!(
                target: "hopsig_bgp::speaker::reload",
                event = "config_reload",
                generation,
                trigger,
                result = "applied",
                reason = "",
                added,
                removed,
                changed,
                reset,
                rpki,
                originate,
                "hopsig speaker: configuration reload {generation} applied: {}",
                self.summary
            ),
            Some(reason) => tracing::warn!(
                target: "hopsig_bgp::speaker::reload",
                event = "config_reload",
                generation,
                trigger,
                result = "refused",
                reason,
                added,
                removed,
                changed,
                reset,
                rpki,
                originate,
                "hopsig speaker: configuration reload {generation} refused: {reason}; the running configuration stays"
            ),
        }
    }
}

/// The kind of a route's BGPsec validation state, as `validation_state` names it.
pub fn route_state_kind(state: &RouteState) -> &'static str {
    match state {
        RouteState::Pending => "pending",
        RouteState::Valid(_) => "valid",
        RouteState::NotValid(_) => "not_valid",
        RouteState::Failed(_) => "failed",
        RouteState::Unsigned => "unsigned",
    }
}

/// Whether a state (of any `check`) makes a route ineligible: such changes are
/// logged at `info`, the others (a route found Valid, as most are) at `debug`, so
/// that a full table does not log a line per route.
fn bad(state: &str) -> bool {
    matches!(state, "not_valid" | "failed" | "invalid")
}

/// `validation_state`: the verdict of `check` (`bgpsec`: RFC 8205 §5; `rov`: RFC
/// 6811 §2; `aspa`: draft-ietf-sidrops-aspa-verification) on the route of `prefix`
/// from `neighbor` went from `from` to `to`, and why.
pub(crate) fn validation_state(
    prefix: &dyn Display,
    neighbor: &dyn Display,
    check: &str,
    from: &str,
    to: &str,
    reason: &str,
) {
    // A tracing callsite's level is fixed: one macro call per level, same fields.
    macro_rules! at {
        ($level:ident) => {
            tracing::$level!(
                target: "hopsig_bgp::speaker::rib",
                event = "validation_state",
                prefix = %prefix,
                neighbor = %neighbor,
                check,
                from,
                to,
                reason,
                "hopsig speaker: {prefix} from {neighbor}: {check} {from} -> {to}"
            )
        };
    }
    if bad(from) || bad(to) {
        at!(info);
    } else {
        at!(debug);
    }
}

/// The name of a NOTIFICATION error code: IANA "BGP Error (Notification) Codes"
/// as a CamelCase identifier (RFC 4271 §4.5, RFC 7313 §5, RFC 9687 §3), `Unknown`
/// for others.
pub fn code_name(code: u8) -> &'static str {
    match ErrorCode::try_from(code) {
        Ok(ErrorCode::MessageHeader) => "MessageHeaderError",
        Ok(ErrorCode::Open) => "OpenMessageError",
        Ok(ErrorCode::Update) => "UpdateMessageError",
        Ok(ErrorCode::HoldTimerExpired) => "HoldTimerExpired",
        Ok(ErrorCode::FiniteStateMachine) => "FiniteStateMachineError",
        Ok(ErrorCode::Cease) => "Cease",
        Ok(ErrorCode::RouteRefresh) => "RouteRefreshMessageError",
        Err(_) if code == SEND_HOLD_TIMER_EXPIRED => "SendHoldTimerExpired",
        Err(_) => "Unknown",
    }
}

/// The name of `subcode` under `code`, as in [`code_name`] (RFC 4271 §4.5, RFC
/// 4486 §4, RFC 6608 §3): `Unspecific` for 0 where the code names none, `Unknown`
/// for others.
pub fn subcode_name(code: u8, subcode: u8) -> &'static str {
    let name = match ErrorCode::try_from(code) {
        Ok(ErrorCode::MessageHeader) => HeaderSubcode::try_from(subcode).ok().map(|s| match s {
            HeaderSubcode::ConnectionNotSynchronized => "ConnectionNotSynchronized",
            HeaderSubcode::BadMessageLength => "BadMessageLength",
            HeaderSubcode::BadMessageType => "BadMessageType",
        }),
        Ok(ErrorCode::Open) => OpenSubcode::try_from(subcode).ok().map(|s| match s {
            OpenSubcode::Unspecific => "Unspecific",
            OpenSubcode::UnsupportedVersionNumber => "UnsupportedVersionNumber",
            OpenSubcode::BadPeerAs => "BadPeerAs",
            OpenSubcode::BadBgpIdentifier => "BadBgpIdentifier",
            OpenSubcode::UnsupportedOptionalParameter => "UnsupportedOptionalParameter",
            OpenSubcode::UnacceptableHoldTime => "UnacceptableHoldTime",
            OpenSubcode::UnsupportedCapability => "UnsupportedCapability",
        }),
        Ok(ErrorCode::Update) => UpdateSubcode::try_from(subcode).ok().map(|s| match s {
            UpdateSubcode::MalformedAttributeList => "MalformedAttributeList",
            UpdateSubcode::UnrecognizedWellKnownAttribute => "UnrecognizedWellKnownAttribute",
            UpdateSubcode::MissingWellKnownAttribute => "MissingWellKnownAttribute",
            UpdateSubcode::AttributeFlagsError => "AttributeFlagsError",
            UpdateSubcode::AttributeLengthError => "AttributeLengthError",
            UpdateSubcode::InvalidOriginAttribute => "InvalidOriginAttribute",
            UpdateSubcode::InvalidNextHopAttribute => "InvalidNextHopAttribute",
            UpdateSubcode::OptionalAttributeError => "OptionalAttributeError",
            UpdateSubcode::InvalidNetworkField => "InvalidNetworkField",
            UpdateSubcode::MalformedAsPath => "MalformedAsPath",
        }),
        Ok(ErrorCode::FiniteStateMachine) => FsmSubcode::try_from(subcode).ok().map(|s| match s {
            FsmSubcode::Unspecified => "Unspecific",
            FsmSubcode::UnexpectedInOpenSent => "UnexpectedMessageInOpenSent",
            FsmSubcode::UnexpectedInOpenConfirm => "UnexpectedMessageInOpenConfirm",
            FsmSubcode::UnexpectedInEstablished => "UnexpectedMessageInEstablished",
        }),
        Ok(ErrorCode::Cease) => CeaseSubcode::try_from(subcode).ok().map(|s| match s {
            CeaseSubcode::MaximumPrefixes => "MaximumNumberOfPrefixesReached",
            CeaseSubcode::AdministrativeShutdown => "AdministrativeShutdown",
            CeaseSubcode::PeerDeconfigured => "PeerDeconfigured",
            CeaseSubcode::AdministrativeReset => "AdministrativeReset",
            CeaseSubcode::ConnectionRejected => "ConnectionRejected",
            CeaseSubcode::OtherConfigurationChange => "OtherConfigurationChange",
            CeaseSubcode::ConnectionCollisionResolution => "ConnectionCollisionResolution",
            CeaseSubcode::OutOfResources => "OutOfResources",
        }),
        _ => None,
    };
    match (name, subcode) {
        (Some(name), _) => name,
        (None, 0) => "Unspecific",
        (None, _) => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notification_codes_have_their_iana_names() {
        assert_eq!(
            (code_name(6), subcode_name(6, 2)),
            ("Cease", "AdministrativeShutdown")
        );
        assert_eq!(subcode_name(6, 7), "ConnectionCollisionResolution");
        assert_eq!(
            (code_name(2), subcode_name(2, 2)),
            ("OpenMessageError", "BadPeerAs")
        );
        assert_eq!(
            (code_name(4), subcode_name(4, 0)),
            ("HoldTimerExpired", "Unspecific")
        );
        assert_eq!(code_name(8), "SendHoldTimerExpired");
        assert_eq!((code_name(99), subcode_name(99, 3)), ("Unknown", "Unknown"));
        assert_eq!(subcode_name(3, 7), "Unknown");
        assert_eq!(subcode_name(5, 3), "UnexpectedMessageInEstablished");
    }
}
