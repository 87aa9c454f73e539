"""Packet Level Authentication (Brumley, ../shared/papers/003): implicit certificates
and the PLA header.

Implicit certificates (003 §II-C, the steps of ``hopsig ic``)::

    ttp = Ttp.setup("k163")
    blind = Blind("k163")                          # the host's blinded request
    issued = ttp.issue("2001:db8::1", blind.request)
    key, cert = finalize(blind, issued, ttp.public_bytes())   # an ecdsa-k163 key
    agg = hopsig.schemes.sign(key, b"message")
    verify(ttp.public_bytes(), cert, b"message", agg)          # fused, eq. 9

The PLA header (docs/spec/pla.md): :class:`Header` decodes and encodes it,
:func:`sign_header` signs a payload, :func:`verify_header` is the per-hop check;
:func:`sign_packet` adds a signed Hop-by-Hop option to an IPv6 packet and
:class:`Router` checks packets as ``hopsig pla verify-pcap`` does.
"""

from ._native import pla as _native

Ttp = _native.Ttp
Blind = _native.Blind
Header = _native.Header
Router = _native.Router
finalize = _native.finalize
extract = _native.extract
public_point = _native.public_point
verify = _native.verify
sign_header = _native.sign_header
verify_header = _native.verify_header
sign_packet = _native.sign_packet

__all__ = [
    "Blind",
    "Header",
    "Router",
    "Ttp",
    "extract",
    "finalize",
    "public_point",
    "sign_header",
    "sign_packet",
    "verify",
    "verify_header",
]
