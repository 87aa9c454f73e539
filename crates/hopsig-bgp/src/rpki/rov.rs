//! Route origin validation (RFC 6811 §2): Valid, Invalid or NotFound for a route's
//! prefix and origin AS against the VRPs of a [`super::view::View`].
